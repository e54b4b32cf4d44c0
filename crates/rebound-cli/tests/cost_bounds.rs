//! Issue 34, items 12 and 13: `--runs` bounded in all (runs × each run's estimated events)
//! on `storm` and `advise`, and `--policy` costed as the policy that will run, not as the
//! scenario's own or default policies it replaces.

mod usage;

use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// Item 12: `storm --runs 10000` of the default storm (seven policies) ran for hours; refused,
/// exit 2, naming `--runs` and the bound. A few runs still run.
#[test]
fn storm_bounds_its_runs_in_all() {
    usage::refused_within(
        LIMIT,
        &["storm", "--runs", "10000"],
        &["events in all runs", "`--runs` = 10000", "7 policies", "at most 1e10"],
    );
    let small = "duration = \"10s\"\n[clients]\ncount = 10\n[outage]\nkind = \"none\"\n";
    let f = usage::File::new("cost-bounds", "small", small);
    let out = usage::rebound_within(LIMIT)
        .args([
            "storm",
            "--scenario",
            f.path(),
            "--policy",
            "constant:base=100ms,max-retries=2",
            "--runs",
            "3",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Item 12: `advise --runs 10000` runs up to seven caps and the alternatives 10,000 times each.
#[test]
fn advise_bounds_its_runs_in_all() {
    let args = [
        "advise",
        "--p99",
        "100ms",
        "--clients",
        "1000",
        "--rate",
        "100/s",
        "--capacity",
        "300/s",
        "--recovery",
        "60s",
    ];
    let mut many = args.to_vec();
    many.extend(["--runs", "10000"]);
    usage::refused_within(LIMIT, &many, &["events in all runs", "`--runs` = 10000", "at most 1e10"]);
}

/// Item 13: a graph whose fan-out is fine with one attempt per user request but past the
/// bound with the default policies' 201: `--policy constant:max-retries=0` runs, where it was
/// refused for the policies it replaces ("× 201 attempts of the users' policy"); the same
/// policy written in the file runs too.
#[test]
fn the_policy_given_is_the_one_costed() {
    let mut toml = String::from("duration = \"20s\"\n[clients]\ncount = 1\n[outage]\nkind = \"none\"\n");
    for i in 0..4 {
        toml += &format!("[[service]]\nname = \"s{i}\"\n");
        for _ in 0..if i < 3 { 16 } else { 0 } {
            toml += &format!(
                "[[service.call]]\nto = \"s{}\"\npolicy = \"constant:base=10ms,max-retries=1\"\n",
                i + 1
            );
        }
    }
    let f = usage::File::new("cost-bounds", "fan", &toml);
    usage::refused_within(
        LIMIT,
        &["storm", "--scenario", f.path()],
        &["calls per user request", "× 201 attempts"],
    );
    let cmd = ["storm", "--scenario", f.path(), "--policy", "constant:max-retries=0"];
    let out = usage::rebound_within(LIMIT).args(cmd).output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    let own =
        usage::File::new("cost-bounds", "own", &format!("policies = [\"constant:max-retries=0\"]\n{toml}"));
    let out = usage::rebound_within(LIMIT).args(["storm", "--scenario", own.path()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A costly --policy is still refused, naming itself.
    usage::refused_within(
        LIMIT,
        &["storm", "--scenario", own.path(), "--policy", "constant:base=100ms"],
        &["calls per user request", "× 201 attempts"],
    );
}

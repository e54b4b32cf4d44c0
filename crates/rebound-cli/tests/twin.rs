//! The live twin end to end (`experiment live --scenario`): the three-tier stack run as real
//! processes agrees with the simulator, and a service process killed mid-run ends the
//! experiment with an error naming it, every other process reaped; Ctrl-C and SIGTERM reap
//! every process; load profiles, balancers and the users' `retry_on` / `give_up_pause` run live.
//!
//! The three-tier runs are compared with the simulator only when the twin judged its run valid
//! (its fidelity bounds: a saturated host is measured, not the stack); beside `stress-ng
//! --cpu 8` it must judge it not valid. A service stopped by someone else (SIGSTOP) ends the
//! run with an error naming it.
//!
//! Each three-tier live run takes the scenario's 40 s, the others 30 s or less; the whole file
//! about four minutes.

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod procs;
use procs::{children, expect_ended};

const BIN: &str = env!("CARGO_BIN_EXE_rebound");

/// The three-tier-live scenarios' duration, in seconds.
const SECS: f64 = 40.0;

fn scenario(name: &str) -> String {
    format!("{}/../../examples/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A child killed when dropped (a failed test leaves nothing behind).
struct Proc(Option<Child>);

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Proc {
    fn id(&self) -> u32 {
        self.0.as_ref().expect("running").id()
    }

    /// Its output once it has exited, within `limit` (read as it comes: a JSON document
    /// larger than a pipe's buffer must not block it).
    fn finish(&mut self, limit: Duration) -> Output {
        use std::io::Read;
        let child = self.0.as_mut().unwrap();
        let reader = |mut r: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = r.read_to_end(&mut buf);
                buf
            })
        };
        let stdout = reader(Box::new(child.stdout.take().unwrap()));
        let stderr = reader(Box::new(child.stderr.take().unwrap()));
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(start.elapsed() < limit, "rebound ran past {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        };
        self.0 = None;
        Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
    }
}

fn rebound(args: &[&str]) -> Proc {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting rebound");
    Proc(Some(child))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The simulator's figures over `runs` seeds: goodput (OK/s) and each service's amplification.
fn simulated(file: &str, runs: u64) -> (Vec<f64>, Vec<Vec<f64>>, Vec<String>) {
    let (mut goodput, mut amp, mut verdicts) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 1..=runs {
        let out = rebound(&["storm", "--scenario", file, "--seed", &seed.to_string(), "--json"])
            .finish(Duration::from_secs(60));
        let doc: Value = serde_json::from_slice(&out.stdout).expect("storm's JSON");
        let p = &doc["policies"][0];
        goodput.push(p["ok"].as_f64().unwrap() / SECS);
        amp.push(
            p["services"].as_array().unwrap().iter().map(|s| s["amplification"].as_f64().unwrap()).collect(),
        );
        verdicts.push(p["verdict"].as_str().unwrap().to_string());
    }
    (goodput, amp, verdicts)
}

/// One variant: its live run's verdict equals the simulator's, its goodput is within 10 % and
/// each service's amplification within 15 % of the simulator's mean over 30 seeds (whose own
/// spread is a few percent: the bounds hold the live run's sampling noise too).
fn agrees(name: &str) {
    let file = scenario(name);
    let dir = std::env::temp_dir().join(format!("rebound-twin-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (plot, html) = (dir.join("twin.svg"), dir.join("twin.html"));
    let (plot, html) = (plot.to_str().unwrap(), html.to_str().unwrap());
    let out = rebound(&["experiment", "live", "--scenario", &file, "--json", "--plot", plot, "--html", html])
        .finish(Duration::from_secs(150));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let live = &doc["policies"][0];
    let sim = &doc["simulated"]["policies"][0];
    let rows = doc["agreement"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["service"] == "db" && r["metric"] == "amplification"), "{name}");
    for key in ["policy", "service", "metric", "simulated", "live", "difference"] {
        assert!(rows.iter().all(|r| r.get(key).is_some()), "{name}: agreement rows lack {key}");
    }
    // The text report (in the HTML): storm's status lines for users and every service, the
    // summary, then simulated vs live; the plot overlays both.
    let page = std::fs::read_to_string(html).unwrap();
    for needle in [
        "t=  40s  users",
        "t=  40s  db",
        "amplification db",
        "simulated vs live",
        "outage: hard-down: POST /admin/outage",
    ] {
        assert!(page.contains(needle), "{name}: `{needle}` missing from the HTML report");
    }
    let svg = std::fs::read_to_string(plot).unwrap();
    assert!(svg.contains("db: goodput, simulated and live") && svg.contains(": live"), "{name}: plot");
    let _ = std::fs::remove_dir_all(&dir);
    // The twin judged its own fidelity; on a saturated host it says so and the comparison is
    // not one (the live figures measure the host).
    let fidelity = &doc["live"]["fidelity"];
    assert!(doc["valid"].is_boolean(), "{name}: no \"valid\" in the document");
    assert_eq!(fidelity["runs"][0]["valid"], doc["valid"], "{name}: {fidelity}");
    if doc["valid"] != true {
        assert!(page.contains("NOT VALID"), "{name}: the text says the comparison is not valid");
        eprintln!("{name}: not compared, the twin judged its run not valid: {}", doc["reason"]);
        return;
    }
    assert_eq!(live["verdict"], sim["verdict"], "{name}: live vs simulated verdict");
    let (goodput, amp, verdicts) = simulated(&file, 30);
    let majority = verdicts.iter().filter(|v| **v == verdicts[0]).count() >= 20;
    assert!(
        majority && live["verdict"] == verdicts[0].as_str(),
        "{name}: {verdicts:?} vs {}",
        live["verdict"]
    );
    let live_goodput = live["ok"].as_f64().unwrap() / SECS;
    let g = mean(&goodput);
    assert!(
        (live_goodput / g - 1.0).abs() <= 0.10,
        "{name}: goodput live {live_goodput:.2} vs simulated {g:.2} ({goodput:?})"
    );
    for (i, svc) in live["services"].as_array().unwrap().iter().enumerate() {
        let a = mean(&amp.iter().map(|v| v[i]).collect::<Vec<_>>());
        let l = svc["amplification"].as_f64().unwrap();
        assert!(
            (l / a - 1.0).abs() <= 0.15,
            "{name}: {} amplification live {l:.2} vs simulated {a:.2}",
            svc["name"]
        );
    }
}

#[test]
fn three_tier_live_agrees_with_the_simulator() {
    for name in ["three-tier-live.toml", "three-tier-live-edge-only.toml", "three-tier-live-budget.toml"] {
        agrees(name);
    }
}

#[test]
fn a_service_killed_mid_run_ends_the_experiment_and_the_rest_are_reaped() {
    let file = scenario("three-tier-live.toml");
    let mut cli = rebound(&["experiment", "live", "--scenario", &file, "--json"]);
    // Three service processes, then a few seconds of load.
    let deadline = Instant::now() + Duration::from_secs(60);
    let procs = loop {
        let c = children(cli.id());
        if c.len() == 3 {
            break c;
        }
        assert!(Instant::now() < deadline, "three service processes within 60 s: {c:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_secs(4));
    let cmdline = |pid: i32| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let db = procs.iter().map(|p| p.0).find(|&p| cmdline(p).contains("\0db\0")).expect("the db process");
    kill(Pid::from_raw(db), Signal::SIGKILL).unwrap();
    let started = Instant::now();
    let out = cli.finish(Duration::from_secs(20));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(started.elapsed() < Duration::from_secs(10), "ended {:?} after the kill", started.elapsed());
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("service process db exited") && stderr.contains("SIGKILL"), "{stderr}");
    expect_ended(procs.iter().map(|p| p.0), Duration::from_secs(10), "service process");
}

#[test]
fn ctrl_c_during_a_paused_outage_reaps_every_process() {
    // three-tier-live with db paused (SIGSTOP) instead of hard-down.
    let text = std::fs::read_to_string(scenario("three-tier-live.toml"))
        .unwrap()
        .replace("kind = \"hard-down\"", "kind = \"pause\"");
    let file = std::env::temp_dir().join(format!("rebound-twin-pause-{}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let mut cli = rebound(&["experiment", "live", "--scenario", file.to_str().unwrap(), "--json"]);
    // db is stopped 12 s into the load: wait (bounded) for a stopped child.
    let deadline = Instant::now() + Duration::from_secs(90);
    let procs = loop {
        let c = children(cli.id());
        if c.iter().any(|(_, state)| *state == 'T') {
            break c;
        }
        assert!(Instant::now() < deadline, "no stopped service process within 90 s: {c:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    kill(Pid::from_raw(cli.id() as i32), Signal::SIGINT).unwrap();
    let out = cli.finish(Duration::from_secs(20));
    let _ = std::fs::remove_file(&file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("reaped"), "{stderr}");
    expect_ended(procs.iter().map(|p| p.0), Duration::from_secs(10), "service process");
}

#[test]
fn open_loop_users_and_a_load_spike_run_live_twice() {
    // One service in two replicas (the users go round-robin), open-loop users at 20/s tripled
    // from 4 s to 8 s of a 12 s run; two runs.
    let text =
        "duration = \"12s\"\nstatus_interval = \"4s\"\npolicies = [\"constant:base=50ms,max-retries=2\"]\n\
                [clients]\nrate = \"20/s\"\narrivals = \"constant\"\ntimeout = \"1s\"\n\
                [[service]]\nname = \"api\"\nreplicas = 2\nworkers = 8\nqueue = 64\nservice_time = \"constant:2ms\"\n\
                [outage]\nkind = \"load-spike\"\nfactor = 3\nstart = \"4s\"\nend = \"8s\"\n\
                [verdict]\nbaseline = \"4s\"\nwindow = \"2s\"\n";
    let file = std::env::temp_dir().join(format!("rebound-twin-open-{}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let out = rebound(&["experiment", "live", "--scenario", file.to_str().unwrap(), "--json", "--runs", "2"])
        .finish(Duration::from_secs(90));
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["live"]["outage"]
        .as_str()
        .unwrap()
        .starts_with("load-spike: the load generator's offered load x 3"));
    let arrivals = |r: &Value, from: usize, to: usize| {
        let s = &r["services"][0]["series"].as_array().unwrap()[from..to];
        s.iter().map(|p| p["first"].as_f64().unwrap()).sum::<f64>() / (to - from) as f64
    };
    let live = &doc["policies"][0];
    // Constant gaps: 20/s before and after, 60/s in the spike (a second's edge either way).
    let (before, during, after) = (arrivals(live, 1, 4), arrivals(live, 5, 8), arrivals(live, 9, 12));
    assert!((17.0..=23.0).contains(&before) && (17.0..=23.0).contains(&after), "{before} {after}");
    assert!((52.0..=68.0).contains(&during), "{during}");
    assert_eq!(live["verdict"], doc["simulated"]["policies"][0]["verdict"]);
    // --runs 2: two live runs (seeds 1 and 2) and two simulated ones, each side's replications.
    for side in [live, &doc["simulated"]["policies"][0]] {
        let seeds: Vec<u64> =
            side["per_run"].as_array().unwrap().iter().map(|r| r["seed"].as_u64().unwrap()).collect();
        assert_eq!((side["runs"].as_u64(), seeds), (Some(2), vec![1, 2]));
    }
}

/// Runs `experiment live --scenario TEXT --json` (bounded to 60 s) and returns its document.
fn live_json(name: &str, text: &str) -> Value {
    let file = std::env::temp_dir().join(format!("rebound-twin-{name}-{}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let out = rebound(&["experiment", "live", "--scenario", file.to_str().unwrap(), "--json"])
        .finish(Duration::from_secs(60));
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The entry service's first attempts per second.
fn firsts(policy: &Value) -> Vec<u64> {
    let s = policy["services"][0]["series"].as_array().unwrap();
    s.iter().map(|p| p["first"].as_u64().unwrap()).collect()
}

#[test]
fn load_phases_a_balancer_and_retry_on_run_live() {
    // Open loop at 30/s, then a phase of 0/s (the queue drains) and one at 60/s; two replicas
    // behind power-of-two; a fifth of the answers are errors, which retry_on = "timeouts" does
    // not retry.
    let text = "duration = \"10s\"\nstatus_interval = \"2s\"\npolicies = [\"constant:base=50ms,max-retries=2\"]\n\
                [clients]\nrate = \"30/s\"\narrivals = \"constant\"\ntimeout = \"1s\"\nretry_on = \"timeouts\"\n\
                [[clients.phase]]\nstart = \"3s\"\nend = \"6s\"\nrate = \"0/s\"\n\
                [[clients.phase]]\nstart = \"6s\"\nend = \"10s\"\nrate = \"60/s\"\n\
                [[service]]\nname = \"api\"\nreplicas = 2\nbalancer = \"power-of-two\"\nworkers = 8\nqueue = 64\n\
                service_time = \"constant:2ms\"\nerror_rate = 0.2\n[outage]\nkind = \"none\"\n";
    let doc = live_json("phases", text);
    let live = &doc["policies"][0];
    let f = firsts(live);
    // Constant gaps: 30/s, none in the 0/s phase (a second's edge either way), then 60/s.
    let (before, gap, after) = (f[1] + f[2], f[4], f[7] + f[8] + f[9]);
    assert!((50..=70).contains(&before) && gap == 0 && (160..=200).contains(&after), "{f:?}");
    let api = &live["services"][0];
    assert!(api["errors"].as_u64().unwrap() > 20, "{api}");
    // Each replica's counts, from its own /metrics: both served (power-of-two spreads the
    // attempts), and they add up to the service's.
    let each = api["replicas"].as_array().expect("a replicas array");
    assert_eq!(each.len(), 2, "{api}");
    let sum = |k: &str| each.iter().map(|r| r[k].as_u64().unwrap()).sum::<u64>();
    for k in ["attempts", "ok", "errors", "timedout", "shed"] {
        assert_eq!(Some(sum(k)), api[k].as_u64(), "{k}: {api}");
    }
    assert!(each.iter().all(|r| r["attempts"].as_u64().unwrap() > 60), "{each:?}");
    // Errors are not retried, live or simulated.
    assert_eq!(
        (api["retries"].as_u64(), doc["simulated"]["policies"][0]["services"][0]["retries"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(live["verdict"], doc["simulated"]["policies"][0]["verdict"]);
}

#[test]
fn give_up_pause_slows_closed_loop_users_live_as_simulated() {
    // Every answer an error, not retried: each of 10 users gives up at once and pauses 1 s, so
    // about 10 / 1.1 s ≈ 9 requests a second instead of the 100 their 100 ms think allows.
    let text = "duration = \"10s\"\nstatus_interval = \"2s\"\npolicies = [\"constant:base=50ms,max-retries=3\"]\n\
                [clients]\ncount = 10\nthink = \"100ms\"\ngive_up_pause = \"1s\"\ntimeout = \"1s\"\nretry_on = \"timeouts\"\n\
                [[service]]\nname = \"api\"\nworkers = 4\nqueue = 64\nservice_time = \"constant:1ms\"\nerror_rate = 1.0\n\
                [outage]\nkind = \"none\"\n";
    let doc = live_json("pause", text);
    let rate = |p: &Value| firsts(p)[1..9].iter().sum::<u64>() as f64 / 8.0;
    let (live, simulated) = (rate(&doc["policies"][0]), rate(&doc["simulated"]["policies"][0]));
    assert!((6.0..=12.0).contains(&live), "{live}/s");
    assert!((live - simulated).abs() <= 0.3 * simulated, "live {live}/s, simulated {simulated}/s");
}

#[test]
fn sigterm_mid_run_exits_143_and_reaps_every_process() {
    // A replicated entry service calling a db: three processes, a 30 s run cut short.
    let text = "duration = \"30s\"\nstatus_interval = \"5s\"\npolicies = [\"constant:base=50ms,max-retries=2\"]\n\
                [clients]\nrate = \"20/s\"\ntimeout = \"1s\"\n\
                [[service]]\nname = \"api\"\nreplicas = 2\nbalancer = \"least-outstanding\"\nservice_time = \"constant:1ms\"\n\
                [[service.call]]\nto = \"db\"\ntimeout = \"500ms\"\n\
                [[service]]\nname = \"db\"\nservice_time = \"constant:1ms\"\n[outage]\nkind = \"none\"\n";
    let file = std::env::temp_dir().join(format!("rebound-twin-term-{}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let mut cli = rebound(&["experiment", "live", "--scenario", file.to_str().unwrap()]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let procs = loop {
        let c = children(cli.id());
        if c.len() == 3 {
            break c;
        }
        assert!(Instant::now() < deadline, "three service processes within 60 s: {c:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_secs(2));
    kill(Pid::from_raw(cli.id() as i32), Signal::SIGTERM).unwrap();
    let out = cli.finish(Duration::from_secs(20));
    let _ = std::fs::remove_file(&file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("SIGTERM") && stderr.contains("reaped"), "{stderr}");
    expect_ended(procs.iter().map(|p| p.0), Duration::from_secs(10), "service process");
}

#[test]
fn a_paused_replica_shows_its_timeouts_in_the_replicas_array() {
    // Two replicas in turn; replica 1 SIGSTOPped from 2 s to 4 s: the users' attempts there
    // time out (300 ms), replica 0's do not.
    let text = "duration = \"7s\"\nstatus_interval = \"1s\"\npolicies = [\"constant:base=10ms,max-retries=1\"]\n\
                [clients]\nrate = \"20/s\"\narrivals = \"constant\"\ntimeout = \"300ms\"\n\
                [[service]]\nname = \"api\"\nreplicas = 2\nworkers = 8\nqueue = 64\nservice_time = \"constant:2ms\"\n\
                [outage]\nkind = \"pause\"\nreplica = 1\nstart = \"2s\"\nend = \"4s\"\n";
    let doc = live_json("paused-replica", text);
    let api = &doc["policies"][0]["services"][0];
    let each = api["replicas"].as_array().expect("a replicas array");
    let timedout: Vec<u64> = each.iter().map(|r| r["timedout"].as_u64().unwrap()).collect();
    assert!(timedout[0] <= 2 && timedout[1] >= 10, "{each:?}");
    assert_eq!(Some(timedout[0] + timedout[1]), api["timedout"].as_u64(), "{api}");
    let simulated =
        doc["simulated"]["policies"][0]["services"][0]["replicas"][1]["timedout"].as_u64().unwrap();
    assert!(timedout[1].abs_diff(simulated) <= simulated / 2, "live {timedout:?}, simulated {simulated}");
}

#[test]
fn attempts_still_in_flight_at_the_end_are_counted() {
    // No retries and a 1.5 s service time: the requests of the last 1.5 s of a 4 s run are
    // still in flight at the end. Each started request made one attempt: 1 attempt per request
    // live as simulated (it read 0.6 live when in-flight attempts were left out).
    let text =
        "duration = \"4s\"\nstatus_interval = \"1s\"\npolicies = [\"constant:base=10ms,max-retries=0\"]\n\
                [clients]\nrate = \"20/s\"\narrivals = \"constant\"\ntimeout = \"5s\"\n\
                [[service]]\nname = \"api\"\nworkers = 64\nqueue = 64\nservice_time = \"constant:1500ms\"\n\
                [outage]\nkind = \"none\"\n";
    let doc = live_json("in-flight", text);
    let (live, sim) = (&doc["policies"][0], &doc["simulated"]["policies"][0]);
    let ok = live["ok"].as_u64().unwrap();
    assert!((30..=60).contains(&ok), "{live}");
    assert!(live["attempts"].as_u64().unwrap() >= ok + 20, "{live}");
    assert_eq!(live["attempts_per_request"].as_f64(), Some(1.0), "{live}");
    assert_eq!(sim["attempts_per_request"].as_f64(), Some(1.0), "{sim}");
    let row = doc["agreement"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["service"] == "users" && r["metric"] == "attempts_per_request")
        .unwrap()
        .clone();
    assert_eq!(row["difference"].as_f64(), Some(0.0), "{row}");
}

#[test]
fn a_service_stopped_by_someone_else_ends_the_run_with_an_error_naming_it() {
    // api -> db; db is SIGSTOPped from outside 3 s into a 30 s run: it stops answering its
    // /metrics, and the run ends with an error naming it (it exited 0 with db's last scrape).
    let text =
        "duration = \"30s\"\nstatus_interval = \"5s\"\npolicies = [\"constant:base=50ms,max-retries=2\"]\n\
                [clients]\nrate = \"20/s\"\ntimeout = \"1s\"\n\
                [[service]]\nname = \"api\"\nservice_time = \"constant:1ms\"\n\
                [[service.call]]\nto = \"db\"\ntimeout = \"300ms\"\n\
                [[service]]\nname = \"db\"\nservice_time = \"constant:1ms\"\n[outage]\nkind = \"none\"\n";
    let file = std::env::temp_dir().join(format!("rebound-twin-sigstop-{}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let mut cli = rebound(&["experiment", "live", "--scenario", file.to_str().unwrap(), "--json"]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let procs = loop {
        let c = children(cli.id());
        if c.len() == 2 {
            break c;
        }
        assert!(Instant::now() < deadline, "two service processes within 60 s: {c:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_secs(3));
    let cmdline = |pid: i32| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let db = procs.iter().map(|p| p.0).find(|&p| cmdline(p).contains("\0db\0")).expect("the db process");
    kill(Pid::from_raw(db), Signal::SIGSTOP).unwrap();
    let stopped = Instant::now();
    let out = cli.finish(Duration::from_secs(25));
    // Whatever happened, db is continued so that it can end.
    let _ = kill(Pid::from_raw(db), Signal::SIGCONT);
    let _ = std::fs::remove_file(&file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stopped.elapsed() < Duration::from_secs(15), "ended {:?} after the stop", stopped.elapsed());
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("service process db")
            && stderr.contains("/metrics")
            && stderr.contains("stopped by a signal"),
        "{stderr}"
    );
    expect_ended(procs.iter().map(|p| p.0), Duration::from_secs(10), "service process");
}

/// `stress-ng --cpu N` for at most `secs` seconds in a process group of its own, ended when
/// dropped: SIGTERM to the group (stress-ng then stops and reaps its workers), the leader
/// reaped within 5 s, else the group killed.
struct Stress(Child);

impl Stress {
    fn start(cpus: u32, secs: u32) -> Stress {
        use std::os::unix::process::CommandExt;
        let child = Command::new("stress-ng")
            .args(["--cpu", &cpus.to_string(), "--timeout", &format!("{secs}s"), "--quiet"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("stress-ng (scripts/test.sh installs Debian's stress-ng)");
        Stress(child)
    }
}

impl Drop for Stress {
    fn drop(&mut self) {
        let group = Pid::from_raw(-(self.0.id() as i32));
        let _ = kill(group, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = kill(group, Signal::SIGKILL);
        let _ = self.0.wait();
    }
}

#[test]
fn a_live_run_beside_stress_ng_is_marked_not_valid() {
    // Eight CPU hogs on the machine: the twin measures the host, says so, and does not report
    // the comparison as valid.
    let stress = Stress::start(8, 40);
    let leader = stress.0.id() as i32;
    std::thread::sleep(Duration::from_secs(1));
    let text = "duration = \"8s\"\nstatus_interval = \"2s\"\npolicies = [\"constant:base=50ms,max-retries=2\"]\n\
                [clients]\ncount = 50\nthink = \"250ms\"\ntimeout = \"1s\"\n\
                [[service]]\nname = \"api\"\nworkers = 16\nservice_time = \"exponential:5ms\"\n\
                [[service.call]]\nto = \"db\"\ntimeout = \"300ms\"\n\
                [[service]]\nname = \"db\"\nworkers = 4\nservice_time = \"exponential:2ms\"\n[outage]\nkind = \"none\"\n";
    let doc = live_json("stress", text);
    let workers: Vec<i32> = children(leader as u32).into_iter().map(|c| c.0).collect();
    drop(stress);
    expect_ended(workers.into_iter().chain([leader]), Duration::from_secs(10), "stress-ng");
    let runs = doc["live"]["fidelity"]["runs"].as_array().unwrap();
    let bounds = &doc["live"]["fidelity"]["bounds"];
    assert_eq!(doc["valid"], false, "beside stress-ng --cpu 8: {runs:?} (bounds {bounds})");
    let reason = doc["reason"].as_str().unwrap();
    assert!(reason.contains("too busy") && reason.contains("bound"), "{reason}");
    assert_eq!(runs[0]["valid"], false);
    assert!(runs[0]["processes"].as_array().unwrap().len() == 3, "{runs:?}");
}

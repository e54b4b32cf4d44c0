//! The engine against queueing theory. Each figure comes from replications (seeds 1, 2, …)
//! and theory must lie within the replications' own 95 % interval (Student's t), widened by the
//! tolerance stated beside it: the runs start empty (a warm-up bias of well under 1 % at these
//! lengths) and latencies are simulated to the nanosecond.
//!
//! Formulas: Erlang C and the M/M/c/K stationary distribution (Kleinrock, *Queueing Systems*
//! vol. 1, 1975, §3.5 and §3.7; Gross & Harris, *Fundamentals of Queueing Theory*, §2.3 and
//! §2.5), Pollaczek–Khinchine's mean wait (Kleinrock §5.6), Jackson's product form for open
//! networks (J. R. Jackson, "Jobshop-like queueing systems", Management Science 10, 1963) and
//! Little's law (J. D. C. Little, Operations Research 9, 1961).

use rebound_sim::estimate::Mean;
use rebound_sim::replicate::{run_all, Until};
use rebound_sim::{Scenario, StormReport};

const RUNS: u32 = 8;
/// The stated tolerance: a share of the estimate added to each side of the interval.
const TOLERANCE: f64 = 0.02;

/// Open-loop Poisson users at `rate` calling the first service, no retries, no trigger, long
/// timeouts; `services` is the `[[service]]` TOML.
fn open_loop(rate: f64, duration_s: u64, services: &str) -> Scenario {
    Scenario::from_toml(&format!(
        "duration = \"{duration_s}s\"\npolicies = [\"constant:max-retries=0\"]\n[clients]\nrate = \"{rate}/s\"\ntimeout = \"1h\"\n[outage]\nkind = \"none\"\n{services}"
    ))
    .unwrap()
}

/// Every run of the scenario's one policy, in full (run 0's report keeps only run 0).
fn runs(s: &Scenario) -> Vec<StormReport> {
    (0..RUNS)
        .map(|i| {
            let mut one = s.clone();
            one.seed = s.seed + u64::from(i);
            one
        })
        .collect::<Vec<_>>()
        .iter()
        .map(|one| run_all(one, &one.policies, 1, Until::End).remove(0))
        .collect()
}

fn mean_of(reports: &[StormReport], f: impl Fn(&StormReport) -> f64) -> Mean {
    Mean::of(&reports.iter().map(f).collect::<Vec<_>>()).unwrap()
}

fn assert_within(what: &str, m: Mean, theory: f64) {
    eprintln!("{what}: theory {theory:.5}, simulated {m:?}");
    assert!(m.admits(theory, TOLERANCE), "{what}: theory {theory:.5}, simulated {m} (± {TOLERANCE})");
}

/// Erlang C: the probability an arrival waits in M/M/c with offered load `a = λ/μ` (< c).
fn erlang_c(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..c {
        term *= a / f64::from(k);
        sum += term;
    }
    let last = term * a / f64::from(c) * f64::from(c) / (f64::from(c) - a);
    last / (sum + last)
}

#[test]
fn mmc_mean_wait_is_erlang_c() {
    // M/M/3: λ = 24/s, μ = 10/s (ρ = 0.8). W = C(3, 2.4) / (cμ − λ) + 1/μ.
    let (lambda, mu, c) = (24.0, 10.0, 3);
    let s = open_loop(
        lambda,
        1500,
        "[[service]]\nname = \"mmc\"\nworkers = 3\nqueue = 100000\nservice_time = \"exponential:100ms\"\n",
    );
    let theory = erlang_c(c, lambda / mu) / (f64::from(c) * mu - lambda) + 1.0 / mu;
    let r = runs(&s);
    assert_within(
        "M/M/3 mean wait + service (s)",
        mean_of(&r, |r| r.services[0].mean_latency_ms / 1e3),
        theory,
    );
}

#[test]
fn mmck_blocking_is_p_k() {
    // M/M/2/5: λ = 15/s, μ = 10/s, K = 2 workers + 3 waiting. P_K = a^K / (c! c^(K−c)) · P0.
    let (lambda, mu, c, k) = (15.0, 10.0, 2u32, 5u32);
    let s = open_loop(
        lambda,
        1500,
        "[[service]]\nname = \"mmck\"\nworkers = 2\nqueue = 3\nservice_time = \"exponential:100ms\"\n",
    );
    let a: f64 = lambda / mu;
    let fact = |n: u32| (1..=n).map(f64::from).product::<f64>();
    let p = |n: u32| {
        if n <= c {
            a.powi(n as i32) / fact(n)
        } else {
            a.powi(n as i32) / (fact(c) * f64::from(c).powi((n - c) as i32))
        }
    };
    let theory = p(k) / (0..=k).map(p).sum::<f64>();
    let r = runs(&s);
    let blocked = mean_of(&r, |r| r.services[0].shed as f64 / r.services[0].attempts as f64);
    assert_within("M/M/2/5 blocking probability", blocked, theory);
}

#[test]
fn md1_mean_wait_is_pollaczek_khinchine() {
    // M/D/1: λ = 7/s, D = 100 ms (ρ = 0.7). Wq = λ D² / (2 (1 − ρ)); W = Wq + D.
    let (lambda, d) = (7.0, 0.1);
    let s = open_loop(
        lambda,
        2000,
        "[[service]]\nname = \"md1\"\nworkers = 1\nqueue = 100000\nservice_time = \"constant:100ms\"\n",
    );
    let rho = lambda * d;
    let theory = lambda * d * d / (2.0 * (1.0 - rho)) + d;
    let r = runs(&s);
    assert_within(
        "M/D/1 mean wait + service (s)",
        mean_of(&r, |r| r.services[0].mean_latency_ms / 1e3),
        theory,
    );
}

/// The guide's pipeline (docs/src/checked/theory.md): a caller with many workers calling each stage in turn; three M/M/1
/// stages at μ = 10, 12, 15 per second.
fn pipeline(lambda: f64) -> Scenario {
    let stage = |name: &str, mean_ms: u32| {
        format!("[[service]]\nname = \"{name}\"\nworkers = 1\nqueue = 100000\nservice_time = \"exponential:{mean_ms}ms\"\n")
    };
    let calls: String = ["a", "b", "c"]
        .iter()
        .map(|to| format!("[[service.call]]\nto = \"{to}\"\ntimeout = \"1h\"\n"))
        .collect();
    let services = format!(
        "[[service]]\nname = \"caller\"\nworkers = 10000\nqueue = 100000\nservice_time = \"constant:1us\"\n{calls}{}{}{}",
        stage("a", 100),
        stage("b", 83),
        stage("c", 66),
    );
    open_loop(lambda, 1500, &services)
}

#[test]
fn a_three_stage_pipeline_is_jackson() {
    // Jackson: each stage is M/M/1 with the same λ, W_i = 1 / (μ_i − λ); the sojourn adds up.
    let lambda = 6.0;
    let s = pipeline(lambda);
    let theory: f64 = [100.0, 83.0, 66.0].iter().map(|ms| 1.0 / (1e3 / ms - lambda)).sum::<f64>() + 1e-6;
    let r = runs(&s);
    assert_within("pipeline sojourn (s)", mean_of(&r, |r| r.services[0].mean_latency_ms / 1e3), theory);
    for (i, ms) in [100.0, 83.0, 66.0].iter().enumerate() {
        let stage = mean_of(&r, |r| r.services[i + 1].mean_latency_ms / 1e3);
        assert_within(&format!("stage {} sojourn (s)", i + 1), stage, 1.0 / (1e3 / ms - lambda));
    }
}

#[test]
fn littles_law_holds_at_every_service() {
    // L = λ W at each of the pipeline's four services: time-averaged requests in the service
    // against its throughput times its mean latency.
    let s = pipeline(6.0);
    let secs = s.duration.as_secs_f64();
    let r = runs(&s);
    for i in 0..4 {
        let ratio = mean_of(&r, |r| {
            let v = &r.services[i];
            v.mean_in_flight / ((v.ok + v.errors) as f64 / secs * v.mean_latency_ms / 1e3)
        });
        assert_within(&format!("{}: L / (λ W)", r[0].services[i].name), ratio, 1.0);
    }
}

/// The instruction guard's and the peer comparison's scenario A (`benches/scenarios/mm1k-a.toml`)
/// is the M/M/1/K its comments say: blocking `(1 − ρ) ρ^K / (1 − ρ^(K+1))` and mean number in
/// the system `ρ/(1 − ρ) − (K+1) ρ^(K+1) / (1 − ρ^(K+1))` (Kleinrock §3.6), ρ = 0.8, K = 10.
#[test]
fn bench_scenario_a_is_the_mm1k_its_comments_give() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/scenarios/mm1k-a.toml");
    let s = Scenario::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (rho, k) = (0.8f64, 10i32);
    let blocking = (1.0 - rho) * rho.powi(k) / (1.0 - rho.powi(k + 1));
    let in_system = rho / (1.0 - rho) - f64::from(k + 1) * rho.powi(k + 1) / (1.0 - rho.powi(k + 1));
    let r = runs(&s);
    let shed = mean_of(&r, |r| r.services[0].shed as f64 / r.services[0].attempts as f64);
    assert_within("scenario A blocking probability", shed, blocking);
    assert_within(
        "scenario A mean number in system",
        mean_of(&r, |r| r.services[0].mean_in_flight),
        in_system,
    );
}

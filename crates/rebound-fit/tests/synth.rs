//! The fit recovers a known stack from its synthetic traces (`rebound_fit::synth`): topology,
//! fan-out, the retry policy api runs, own service times and error rates, within intervals of
//! a few standard errors of the sample sizes used.

use rebound_fit::{synth, Fitter, Options};

#[test]
fn the_fit_recovers_the_stack_that_made_the_traces() {
    let path = std::env::temp_dir().join(format!("rebound-fit-synth-{}.jsonl", std::process::id()));
    let stack = synth::Stack::default();
    let f = std::fs::File::create(&path).unwrap();
    synth::write(&stack, 15_000, 512, std::io::BufWriter::new(f)).unwrap();
    let mut fitter = Fitter::new(Options::default());
    fitter.read_file(&path).unwrap();
    let fit = fitter.finish().unwrap();
    std::fs::remove_file(&path).unwrap();

    let names: Vec<&str> = fit.services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["front", "api", "db"]);
    let traces = fit.input.traces as f64;
    assert!(traces > 2000.0, "{traces}");
    let edge = |to: &str| fit.edges.iter().find(|e| e.to == to).unwrap();
    assert_eq!(edge("api").fanout_mean, 1.0);
    // 1 + Bernoulli(0.5) calls: the mean's standard error is 0.5 / √traces (< 0.008).
    assert!((edge("db").fanout_mean - 1.5).abs() < 4.0 * 0.5 / traces.sqrt(), "{}", edge("db").fanout_mean);
    let r = &edge("db").retries;
    assert_eq!(r.policy, "exponential:base=10ms,factor=2.00,jitter=none,max-retries=3", "{r:?}");
    assert_eq!(edge("api").retries.retried, 0);
    // Own times: db's span is its log-normal draw (median 3 ms, σ 0.5: mean 3 e^0.125 ms);
    // api's adds 0.2 ms of its own around the calls. Sample sizes > 2000: 5 % is > 4 SE.
    let mean = |s: &str| fit.services.iter().find(|x| x.name == s).unwrap().own_time.as_ref().unwrap().mean_s;
    let ln_mean = |p50: f64| p50 * (0.5f64 * 0.5 / 2.0).exp();
    assert!((mean("db") / ln_mean(0.003) - 1.0).abs() < 0.05, "{}", mean("db"));
    assert!((mean("api") / (ln_mean(0.005) + 0.0002) - 1.0).abs() < 0.05, "{}", mean("api"));
    let db = fit.services.iter().find(|x| x.name == "db").unwrap();
    assert_eq!(db.own_time.as_ref().unwrap().form, "lognormal");
    assert!((db.own_error_rate - 0.2).abs() < 0.03, "{}", db.own_error_rate);
    assert!((fit.users.rate_per_s / stack.rate - 1.0).abs() < 0.1, "{}", fit.users.rate_per_s);
    assert!(fit.input.warnings.0.is_empty(), "{:?}", fit.input.warnings);
}

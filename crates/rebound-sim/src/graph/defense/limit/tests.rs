use super::*;

#[test]
fn forms_parse_print_and_refuse() {
    for s in ["fixed:8", "aimd:initial_limit=10,backoff_ratio=0.9,timeout=5s"] {
        assert_eq!(s.parse::<ConcurrencyLimit>().unwrap().to_string(), s);
    }
    assert_eq!(
        "gradient2".parse::<ConcurrencyLimit>().unwrap().to_string(),
        "gradient2:initial_limit=20,min_limit=20,max_concurrency=200,smoothing=0.2,queue_size=4,long_window=600"
    );
    for bad in [
        "fixed:0",
        "fixed",
        "aimd:backoff_ratio=1",
        "aimd:timeout=0s",
        "gradient2:min_limit=30",
        "vegas",
        "aimd:queue_size=3",
    ] {
        let e = bad.parse::<ConcurrencyLimit>().unwrap_err();
        assert!(e.contains(KEY), "{bad}: {e}");
    }
}

/// Issue 34 §16: a key given twice was taken last-wins, and `aimd:` with nothing after it
/// was accepted.
#[test]
fn a_key_given_twice_and_an_empty_body_are_refused() {
    for (bad, named) in [
        ("aimd:timeout=1s,timeout=2s", "`timeout` is given twice"),
        ("gradient2:min_limit=1,min_limit=2", "`min_limit` is given twice"),
        ("aimd:", "nothing after `:`"),
        ("gradient2: ", "nothing after `:`"),
    ] {
        let e = bad.parse::<ConcurrencyLimit>().unwrap_err();
        assert!(e.contains(KEY) && e.contains(named), "{bad}: {e}");
    }
}

#[test]
fn aimd_adds_one_and_multiplies_down() {
    let mut l = Limiter::new("aimd".parse().unwrap());
    l.on_sample(1, 5, false);
    assert_eq!(l.limit, 11.0);
    l.on_sample(1, 1, false);
    assert_eq!(l.limit, 11.0, "app-limited: unchanged");
    l.on_sample(1, 5, true);
    assert_eq!(l.limit, 9.0);
    l.on_sample(6_000_000_000, 5, false);
    assert_eq!(l.limit, 8.0, "slower than the 5 s timeout counts as a drop");
}

#[test]
fn gradient2_shrinks_when_latency_rises_and_stays_in_bounds() {
    let mut l = Limiter::new("gradient2:initial_limit=100,min_limit=20,max_concurrency=200".parse().unwrap());
    for _ in 0..100 {
        l.on_sample(10_000_000, 100, false);
    }
    let steady = l.limit;
    assert!(steady <= 200.0);
    for _ in 0..20 {
        l.on_sample(40_000_000, 200, false);
    }
    assert!(l.limit < steady, "{} vs {steady}", l.limit);
    assert!(l.limit >= 20.0);
}

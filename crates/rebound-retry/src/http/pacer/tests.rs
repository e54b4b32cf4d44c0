use super::*;
use std::time::SystemTime;

fn seen(pacer: &Pacer, host: &str, ratelimit: &str, policy: Option<&str>, now: Instant) {
    let get = |n: &str| match n {
        "ratelimit" => Some(ratelimit),
        "ratelimit-policy" => policy,
        _ => None,
    };
    pacer.observe(host, &ServerSignals::from_headers(get, SystemTime::now()), now);
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn spaces_sends_over_the_window_then_stops_pacing() {
    let (p, t0) = (Pacer::new(), Instant::now());
    seen(&p, "h", r#""a";r=10;t=1"#, None, t0);
    let waits: Vec<_> = (0..3).map(|_| p.reserve("h", t0).unwrap()).collect();
    assert_eq!(waits, [ms(0), ms(100), ms(200)]);
    assert_eq!(p.reserve("other", t0), Ok(Duration::ZERO), "another host is not paced");
    assert_eq!(p.reserve("h", t0 + ms(1000)), Ok(Duration::ZERO), "the window ended");
}

#[test]
fn a_spent_quota_blocks_until_the_reset_and_t0_drops_the_lane() {
    let (p, t0) = (Pacer::new(), Instant::now());
    seen(&p, "h", r#""a";r=0;t=3"#, None, t0);
    assert_eq!(p.reserve("h", t0), Ok(Duration::from_secs(3)));
    seen(&p, "h", r#""a";r=5;t=0"#, None, t0);
    assert_eq!(p.reserve("h", t0), Ok(Duration::ZERO));
}

#[test]
fn lanes_by_policy_and_partition_key_and_the_policy_window() {
    let (p, t0) = (Pacer::new(), Instant::now());
    seen(&p, "h", r#""a";r=2, "b";r=4;t=1;pk=:YQ==:"#, Some(r#""a";q=10;w=2"#), t0);
    // Lane a: 2 left over w=2 s (no t): 1 s apart; lane b: 250 ms apart. The later wins.
    assert_eq!(p.reserve("h", t0), Ok(ms(0)));
    assert_eq!(p.reserve("h", t0), Ok(ms(1000)));
    seen(&p, "h", r#""c";r=1"#, None, t0); // no t, no policy: ignored
    assert_eq!(p.reserve("h", t0 + ms(1000)), Ok(ms(1000)), "lane a's window lasts until 2 s");
}

#[test]
fn a_wait_above_the_ceiling_books_nothing() {
    let (p, t0) = (Pacer::new().with_ceiling(Duration::from_secs(10)), Instant::now());
    seen(&p, "h", r#""a";r=0;t=3600"#, None, t0);
    let err = p.reserve("h", t0).unwrap_err();
    assert_eq!((err.wait, err.ceiling), (Duration::from_secs(3600), Duration::from_secs(10)));
    assert!(err.to_string().contains("above the ceiling"));
    seen(&p, "h", r#""a";r=1;t=1"#, None, t0);
    assert_eq!(p.reserve("h", t0), Ok(Duration::ZERO));
}

#[test]
fn lanes_are_bounded() {
    let (p, t0) = (Pacer::new(), Instant::now());
    for i in 0..MAX_LANES + 10 {
        seen(&p, &format!("h{i}"), r#""a";r=1;t=60"#, None, t0);
    }
    assert_eq!(p.lanes().len(), MAX_LANES);
    seen(&p, "late", r#""a";r=1;t=60"#, None, t0 + Duration::from_secs(61));
    assert_eq!(p.lanes().len(), 1, "ended windows make room");
}

use super::*;

#[test]
fn service_times_parse_and_print() {
    for s in [
        "constant:10ms",
        "exponential:5ms",
        "lognormal:p50=20ms,p99=120ms",
        "linear:base=1s,per_in_flight=10ms",
        "empirical:p0=1ms,p50=4ms,p99.9=30ms,p100=80ms",
        "s5",
    ] {
        let t: ServiceTime = s.parse().unwrap();
        assert_eq!(t.to_string(), s);
    }
    for bad in ["constant:0s", "lognormal:p50=20ms", "lognormal:p50=2s,p99=1s", "uniform:1s", "exp:1s"] {
        assert!(bad.parse::<ServiceTime>().unwrap_err().contains("service_time"), "{bad}");
    }
}

/// Issue 34 §16: `linear:base=1ms,base=2ms` was taken last-wins.
#[test]
fn a_service_time_key_given_twice_is_refused() {
    for (bad, key) in [
        ("linear:base=1ms,base=2ms,per_in_flight=1ms", "`base`"),
        ("lognormal:p50=1ms,p99=5ms,p99=6ms", "`p99`"),
    ] {
        let e = bad.parse::<ServiceTime>().unwrap_err();
        assert!(e.contains("service_time") && e.contains(&format!("{key} is given twice")), "{bad}: {e}");
    }
}

#[test]
fn lognormal_hits_its_percentiles() {
    let t: ServiceTime = "lognormal:p50=20ms,p99=120ms".parse().unwrap();
    let s = t.sampler().unwrap();
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(7);
    let mut v: Vec<f64> = (0..100_000).map(|_| s.sample(&mut rng, 0)).collect();
    v.sort_by(f64::total_cmp);
    assert!((v[50_000] / 20e6 - 1.0).abs() < 0.03, "{}", v[50_000]);
    assert!((v[99_000] / 120e6 - 1.0).abs() < 0.05, "{}", v[99_000]);
}

#[test]
fn rates() {
    assert_eq!("500/s".parse::<Rate>().unwrap().per_s, 500.0);
    assert_eq!("60/m".parse::<Rate>().unwrap().per_s, 1.0);
    for bad in ["0/s", "500", "-1/s", "5/d", "1e9/s"] {
        assert!(bad.parse::<Rate>().is_err(), "{bad}");
    }
}

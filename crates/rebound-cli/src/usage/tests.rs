use super::*;

#[test]
fn durations_are_bounded() {
    let p = duration_in(Duration::from_millis(1), DAY);
    assert_eq!(p("2s"), Ok(Duration::from_secs(2)));
    assert_eq!(p("1day"), Ok(DAY));
    let e = p("585years").unwrap_err();
    assert!(e.contains("[1ms, 1day]"), "{e}");
    let e = p("0").unwrap_err();
    assert!(e.contains("out of range") && e.contains("[1ms, 1day]"), "{e}");
    assert!(p("soon").unwrap_err().contains("not a duration"));
}

#[test]
fn numbers_are_bounded() {
    let p = number_in(1.0, 1e6);
    assert_eq!(p("12"), Ok(12.0));
    for bad in ["0.5", "inf", "NaN", "1e300", "x"] {
        assert!(p(bad).unwrap_err().contains("[1, 1000000]"), "{bad}");
    }
}

#[test]
fn count_ranges_are_bounded_before_listing() {
    let p = counts_in(10_000_000, 1000);
    assert_eq!(p("50..1000:50").unwrap().count(), 20);
    let e = p("1..4294967295:1").unwrap_err();
    assert!(e.contains("[1, 10000000]"), "{e}");
    let e = p("1..5000").unwrap_err();
    assert!(e.contains("5000 counts, at most 1000"), "{e}");
    assert!(p("0..5").unwrap_err().contains(">= 1"));
}

#[test]
fn live_rates_are_bounded() {
    assert_eq!(live_rate("100/s"), Ok(100.0));
    for bad in ["1e-300/s", "1e300/s", "0/s"] {
        assert!(live_rate(bad).is_err(), "{bad}");
    }
    assert!(live_rate("1e-300/s").unwrap_err().contains("[0.001, 1000000]"));
}

#[test]
fn urls_need_a_scheme_and_a_host() {
    assert!(http_url("http://127.0.0.1:8070/api").is_ok() && http_url("https://h").is_ok());
    for bad in ["notaurl", "http://", "ftp://h/", "http:///api", "127.0.0.1:8070"] {
        assert!(http_url(bad).unwrap_err().contains("http:// or https://"), "{bad}");
    }
}

#[test]
fn plot_paths() {
    assert!(plot_path("/tmp/b.SVG").is_ok() && plot_path("b.png").is_ok());
    assert!(plot_path("b.gif").unwrap_err().contains(".svg or .png"));
    assert!(plot_path("/nonexistent/b.svg").unwrap_err().contains("/nonexistent does not exist"));
}

#[test]
fn library_input_errors_are_usage_errors() {
    let spec = "constant:bogus=1".parse::<rebound_retry::Spec>().unwrap_err();
    assert!(is_usage(&anyhow::Error::from(spec).context("--policy")));
    assert!(is_usage(&usage("--x: bad")));
    assert!(!is_usage(&anyhow::anyhow!("connection refused")));
}

#[test]
fn entries_keep_the_mean_fan_out() {
    let p = super::entry_probabilities(&[0.0, 0.486, 0.514]);
    assert_eq!(p.len(), 2);
    assert!((p[0] - 1.0).abs() < 1e-12 && (p[1] - 0.514).abs() < 1e-12, "{p:?}");
    // Some requests make none; one to three calls otherwise.
    let p = super::entry_probabilities(&[0.1, 0.3, 0.3, 0.3]);
    assert!((p.iter().sum::<f64>() - (0.3 + 0.6 + 0.9)).abs() < 1e-12, "{p:?}");
    assert!((p[0] - 0.9).abs() < 1e-12 && (p[2] - 0.3).abs() < 1e-12, "{p:?}");
    // 20 calls each: 16 entries, the last always made (the mean is cut to 16).
    let mut f = vec![0.0; 21];
    f[20] = 1.0;
    assert_eq!(super::entry_probabilities(&f), vec![1.0; 16]);
}

#[test]
fn a_common_duration_is_a_timeout() {
    let v = [0.01, 0.02, 0.5, 1.0, 1.001, 1.002, 1.003, 1.01];
    assert_eq!(super::common_duration(&v), Some((1.002, 5)));
    assert_eq!(super::common_duration(&[0.1, 0.5, 0.9]), None);
}

#[test]
fn a_timeout_is_one_no_attempt_outlasted() {
    // Attempts cut at 500 ms end there, a few ms late at most: a timeout.
    assert!(super::none_outlast(0.5, 0.503));
    assert!(super::none_outlast(0.010, 0.014));
    // Three connection errors at 189 µs, answered attempts up to 34 ms: not a timeout.
    assert!(!super::none_outlast(189e-6, 0.034));
    assert!(!super::none_outlast(0.5, 0.6));
}

use super::*;

#[test]
fn a_report_compared_with_itself_agrees_exactly() {
    let sc = Scenario::from_toml(
        "duration = \"30s\"\nseed = 3\n[clients]\ncount = 50\nthink = \"1s\"\n[[service]]\nname = \"a\"\nworkers = 4\nservice_time = \"exponential:5ms\"\n[outage]\nkind = \"pause\"\nstart = \"12s\"\nend = \"15s\"\n",
    )
    .unwrap();
    let spec = "constant:base=100ms,max-retries=3".parse().unwrap();
    let r = rebound_sim::storm::run(&sc, &spec);
    let rows = agreement(&sc, &r, &r);
    assert_eq!(rows.len(), 5 + 7);
    for a in &rows {
        match &a.difference {
            Figure::Number(d) => assert_eq!(*d, 0.0, "{a:?}"),
            Figure::Text(t) => assert_eq!(t, "same"),
            Figure::Missing => assert!(a.simulated == Figure::Missing, "{a:?}"),
        }
    }
    // The users' row and the service's verdict are the simulator's own.
    assert_eq!(rows[0].simulated, Figure::Text(r.verdict.as_str().into()));
    let mut live = r.clone();
    live.ok = r.ok / 2;
    let goodput = agreement(&sc, &r, &live).into_iter().find(|a| a.metric == "goodput_per_s").unwrap();
    assert!((relative(&goodput).unwrap() - 0.5).abs() < 0.01);
}

#[test]
fn live_report_judged_by_the_simulators_rule() {
    let sc = Scenario::from_toml(
        "duration = \"30s\"\n[[service]]\nname = \"a\"\nservice_time = \"exponential:5ms\"\n[outage]\nkind = \"pause\"\nstart = \"12s\"\nend = \"15s\"\n",
    )
    .unwrap();
    let ok = |t: u64| if (12..17).contains(&t) { 0 } else { 100 };
    let series = (0..30).map(|t| crate::load::Second { t, ok: ok(t), ..Default::default() }).collect();
    let load = LoadReport { ok: 2500, gave_up: 10, series, ..LoadReport::default() };
    let r = live_report(&sc, "p", 1, &load, Vec::new());
    assert_eq!((r.verdict.as_str(), r.recovery_s), ("recovered", Some(2.0)));
    assert_eq!(r.attempts_per_request, 2500.0 / 2510.0);
    assert_eq!(r.replications.runs, 1);
}

#[test]
fn attempts_in_flight_at_the_end_count() {
    // No retries: 20 requests answered, 10 cut with their one attempt still in flight.
    let sc = Scenario::from_toml(
        "duration = \"3s\"\nstatus_interval = \"1s\"\n[[service]]\nname = \"a\"\nservice_time = \"constant:1s\"\n[outage]\nkind = \"none\"\n",
    )
    .unwrap();
    let load = LoadReport { ok: 20, cut: 10, in_flight_at_end: 10, ..LoadReport::default() };
    let r = live_report(&sc, "p", 1, &load, Vec::new());
    assert_eq!((r.attempts, r.attempts_per_request), (30, 1.0));
    assert_eq!(r.attempts, r.ok + r.errors + r.timedout + load.in_flight_at_end);
}

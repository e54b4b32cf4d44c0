use super::*;

/// A sharded storm's units, in any split, are the unsharded run's `per_run`.
#[test]
fn units_in_any_order_are_the_replications_runs() {
    let mut s = Scenario::default();
    s.clients.count = 50;
    s.duration = std::time::Duration::from_secs(30);
    let specs: Vec<Spec> = ["constant:base=100ms", "constant:base=1s"].map(|p| p.parse().unwrap()).to_vec();
    let whole = run_all(&s, &specs, 3, Until::End);
    let units = run_units(&s, &specs, 3, &[5, 0, 3, 1, 4, 2], &Stop::new()).unwrap();
    let mut got = vec![None; 6];
    for (u, r) in [5, 0, 3, 1, 4, 2].into_iter().zip(units) {
        got[u] = Some(r);
    }
    let want: Vec<RunSummary> = whole.iter().flat_map(|r| r.replications.per_run.clone()).collect();
    assert_eq!(got.into_iter().map(Option::unwrap).collect::<Vec<_>>(), want);
    assert_eq!(Replications::of(want[..3].to_vec()), whole[0].replications);
}

//! The advisor's rules and its evidence.

use super::*;

fn readme() -> Inputs {
    Inputs {
        p99: Duration::from_millis(100),
        clients: 1000,
        rate: 100.0,
        capacity: 300.0,
        recovery: Duration::from_secs(60),
    }
}

/// Fuzzing finding (fuzz target `advise`): `recovery = "59M"` (59 months) passed validation,
/// and the evidence storm was a ten-year simulation whose scenario fails its own validation.
#[test]
fn inputs_out_of_bounds_are_refused_naming_the_field() {
    /// An edit of the README's inputs, the field refused and its range.
    type Case = (fn(&mut Inputs), &'static str, &'static str);
    let cases: [Case; 9] = [
        (|i| i.recovery = Duration::from_secs(155_170_944), "recovery", "[1s, 10h]"),
        (|i| i.recovery = Duration::MAX, "recovery", "[1s, 10h]"),
        (|i| i.p99 = Duration::from_secs(3601), "p99", "[1ms, 1m]"),
        (|i| i.p99 = Duration::ZERO, "p99", "[1ms, 1m]"),
        (|i| i.clients = 10_000_001, "clients", "[1, 10000000]"),
        (|i| i.rate = 1e-300, "rate", "at least clients / 1 day"),
        (|i| (i.rate, i.capacity) = (1e12, 2e12), "rate", "(0, 1000000]/s"),
        (|i| i.capacity = 1e10, "capacity", "at most"),
        (|i| i.capacity = 100.0 + 1e-12, "capacity", "over a day"),
    ];
    for (edit, field, range) in cases {
        let mut i = readme();
        edit(&mut i);
        let err = i.validate().unwrap_err();
        assert_eq!(err.field, field, "{i:?}: {err}");
        assert!(err.message.contains(range), "{i:?}: {err}");
        assert!(recommend(&i, 1).is_err());
    }
}

/// At the bounds everything the advisor builds is valid: the recommendation at every
/// margin it tries, the alternatives, and the storm scenario.
#[test]
fn inputs_at_the_bounds_give_valid_specs_and_scenarios() {
    const DAY_S: f64 = 86_400.0;
    let edges = [
        readme(),
        Inputs {
            recovery: Duration::from_secs(36_000),
            p99: Duration::from_secs(60),
            capacity: 1e5,
            ..readme()
        },
        Inputs { clients: 1_000_000, rate: 9e4, capacity: 1e6, p99: Duration::from_millis(1), ..readme() },
        Inputs { clients: 1, rate: 1.0 / DAY_S, capacity: 1.0, ..readme() },
        Inputs { clients: 10_000_000, rate: 1000.0, capacity: 1000.0 + 2e7 / DAY_S * 1.0001, ..readme() },
    ];
    for i in edges {
        i.validate().unwrap_or_else(|e| panic!("{i:?}: {e}"));
        for margin in [1, 2, 4, 8, 16, 32, 64] {
            let (spec, _) = recommend(&i, margin).unwrap_or_else(|e| panic!("{i:?}: {e}"));
            spec.parse::<Spec>().unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
        scenario(&i).validate().unwrap_or_else(|e| panic!("{i:?}: {e}"));
    }
}

/// Ten million clients offering 900,000 requests/s, retried every 100 ms by the fixed policy
/// the advisor compares against while the service is paused: about 1.6e10 attempts, past the
/// simulator's bound on events (issue 24): refused, naming the bound, before any run.
#[test]
fn inputs_whose_storm_would_cost_too_much_are_refused_before_any_run() {
    let i =
        Inputs { clients: 10_000_000, rate: 9e5, capacity: 1e7, p99: Duration::from_millis(1), ..readme() };
    let e = advise(&i, |_, _| unreachable!("no run")).unwrap_err();
    assert!(e.message.contains("events") && e.message.contains("at most 1e10"), "{e}");
}

/// Issue 34: 5 clients at 0.5/s against 100/s (2.5 requests per verdict window), and at
/// 0.0001/s (no request in the whole storm): too little traffic to judge, so the advisor says
/// so and keeps S2's cap instead of doubling it on chance verdicts.
#[test]
fn thin_evidence_never_moves_the_cap() {
    for rate in [0.5, 0.0001] {
        let i = Inputs { clients: 5, rate, capacity: 100.0, ..readme() };
        let a = advise(&i, |s, specs| crate::replicate::run_all(s, specs, 3, crate::replicate::Until::End))
            .unwrap_or_else(|e| panic!("{rate}: {e}"));
        assert_eq!(a.spec, recommend(&i, 1).unwrap().0, "{rate}: {:?}", a.reasoning);
        let why = a.thin_evidence.as_deref().unwrap_or_else(|| panic!("{rate}: no note"));
        assert!(why.contains("too little traffic") || why.contains("no request"), "{why}");
        assert!(a.reasoning.iter().any(|r| r.contains(why)), "{:?}", a.reasoning);
        assert!(
            !a.reasoning.iter().any(|r| r.contains("S2's floor.") && r.contains("x S2")),
            "{:?}",
            a.reasoning
        );
    }
    // The README's inputs (500 requests per window) are evidence enough.
    let a =
        advise(&readme(), |s, specs| crate::replicate::run_all(s, specs, 1, crate::replicate::Until::End))
            .unwrap();
    assert_eq!(a.thin_evidence, None);
}

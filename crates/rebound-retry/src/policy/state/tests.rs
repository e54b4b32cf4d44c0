use crate::Backoff;
use rand::{rngs::SmallRng, SeedableRng};

/// One spec per jitter kind (and schedule), capped and not, the cap before and after jitter.
const SPECS: [&str; 10] = [
    "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true",
    "exponential:base=100ms,factor=2,cap=1m,jitter=decorrelated,max-retries=20",
    "linear:base=10ms,step=5ms,cap=1s,jitter=full,max-retries=9",
    "constant:base=100ms,max-retries=3",
    "exponential:base=10ms,factor=3,cap=2s,jitter=equal",
    "exponential:base=10ms,factor=1.5,cap=1s,jitter=thain,stop-at=900ms",
    "linear:base=1s,step=1s,jitter=randomization:0.5",
    "exponential:base=50ms,factor=2,cap=10s,jitter=randomization:0.5:200ms",
    "exponential:base=50ms,factor=2,cap=10s,jitter=normal:0.3",
    "constant:base=0s,jitter=full,max-attempts=4",
];

#[test]
fn a_state_yields_the_delays_of_a_seeded_backoff() {
    for spec in SPECS {
        let policy = *spec.parse::<crate::Spec>().unwrap().policy().unwrap();
        let (mut backoff, mut state) = (policy.backoff_seeded(42), policy.state_seeded(42));
        for round in 0..3 {
            for _ in 0..12 {
                assert_eq!(state.next_delay(&policy), backoff.next_delay(), "{spec}, round {round}");
            }
            assert_eq!(state.retries(), backoff.retries());
            state.reset(&policy);
            backoff.reset();
        }
    }
}

/// A state without an RNG, given the RNG at each step, yields exactly the delays (and the
/// nanoseconds) of a seeded backoff, for every jitter kind, across resets (the RNG goes on).
#[test]
fn a_state_without_rng_yields_the_delays_of_a_seeded_backoff() {
    for (i, spec) in SPECS.into_iter().enumerate() {
        let policy = *spec.parse::<crate::Spec>().unwrap().policy().unwrap();
        let seed = 1000 + i as u64;
        let (mut backoff, mut state) = (policy.backoff_seeded(seed), policy.state_without_rng());
        let mut rng = SmallRng::seed_from_u64(seed);
        for round in 0..3 {
            for n in 0..12 {
                let (got, want) = if n % 2 == 0 {
                    (state.next_delay_with(&policy, &mut rng), backoff.next_delay())
                } else {
                    let got = state.next_delay_nanos_with(&policy, &mut rng);
                    (
                        got.map(core::time::Duration::from_nanos),
                        backoff.next_delay_nanos().map(core::time::Duration::from_nanos),
                    )
                };
                assert_eq!(got, want, "{spec}, round {round}, delay {n}");
            }
            assert_eq!(state.retries(), backoff.retries());
            state.reset(&policy);
            backoff.reset();
        }
    }
}

/// The count saturates at `u32::MAX`: a limited policy stops there, however high its limit;
/// an unlimited one goes on.
#[test]
fn the_retry_count_saturates() {
    use crate::Policy;
    let ms = core::time::Duration::from_millis;
    for (max, more) in [(Some(5_000_000_000), false), (Some(u64::MAX), false), (None, true)] {
        let b = Policy::exponential(ms(1), 2.0).cap(ms(10));
        let policy = max.map_or(b, |n| b.max_retries(n)).build().unwrap();
        let mut state = policy.state_without_rng();
        state.retries = u32::MAX - 1;
        state.current = 10e6;
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(state.next_delay_with(&policy, &mut rng), Some(ms(10)), "{max:?}");
        assert_eq!(state.retries(), u64::from(u32::MAX));
        let next = state.next_delay_with(&policy, &mut rng);
        assert_eq!((next, state.retries()), (more.then_some(ms(10)), u64::from(u32::MAX)), "{max:?}");
    }
}

#[test]
fn a_state_without_rng_is_small() {
    // Issue 14: a simulator keeps one per client.
    assert_eq!(core::mem::size_of::<super::BackoffState<()>>(), 24);
    assert_eq!(core::mem::size_of::<super::BackoffState<u32>>(), 24);
    assert_eq!(core::mem::size_of::<super::BackoffState<SmallRng>>(), 56);
}

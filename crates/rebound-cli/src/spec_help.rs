//! The policy spec grammar, as shown by `--help` of every command that takes a spec.

/// Long help text describing `KIND[:key=value,...]`, every key with its default and range.
pub const SPEC_HELP: &str = "\
Policy specs: KIND[:key=value,...]

KIND is constant, linear, exponential or responsive. Durations are humantime: 100ms, 1s, 1m30s, 15m.

constant, linear, exponential:
  base=DURATION          first delay (default 100ms)
  step=DURATION          linear only: added per retry (default: base)
  factor=F               exponential only: multiplier, finite, >= 1 (default 2)
  cap=DURATION           maximum delay, >= base; holds after jitter (default: none)
  jitter=J               none | full | equal | decorrelated | thain | randomization:F[:MAX]
                         (F in [0, 1], MAX a duration) | normal:J (J in [0, 10]) (default none)
  jitter-after-cap=BOOL  true adds jitter after the cap, as S5 does (default false)
  max-retries=N          integer >= 0 (default: unlimited)
  max-attempts=N         integer >= 1, the first attempt included (default: unlimited)
  max-elapsed=DURATION   > 0, waits included (default: none)
  stop-at=DURATION       > 0: no retry whose delay would be >= it (S1's rule) (default: none)

responsive (S4's AutoSleeper; defaults are S4's):
  initial=DURATION            first sleep after a failure, > 0 (default 500ms)
  max=DURATION                >= initial (default 15m)
  up=F                        multiplier on failure, >= 1 (default 1.5)
  down=F                      multiplier after `threshold` successes, in (0, 1] (default 0.9)
  threshold=N                 successes before going down, >= 1 (default 10)
  randomization=F             in [0, 1] (default 0.3)
  max-randomization=DURATION  bound on the randomization (default 2m)

Examples:
  exponential:base=1s,factor=2,stop-at=10s        1s 2s 4s 8s, then stop (S1)
  exponential:base=200ms,factor=2,max-retries=5   200ms ... 3.2s (S3)
  exponential:base=100ms,cap=10s,jitter=full
  responsive:initial=1ms,randomization=0";

//! The spec grammar, as printed by `--help`.

/// The policy spec grammar and its keys, as a literal (for `concat!` with a command's example).
macro_rules! spec_help_text {
    () => {
        "\
Policy specs: KIND[:key=value,...], KIND = constant | linear | exponential | responsive
  base=DUR (100ms)  step=DUR (linear)  factor=F>=1 (2)  cap=DUR>=base  max-retries=N
  max-attempts=N>=1  max-elapsed=DUR  stop-at=DUR (S1: no retry whose delay would be >= it)
  jitter=none|full|equal|decorrelated|thain|randomization:F[:MAX]|normal:J|normal:DUR
  jitter-after-cap=true|false
  responsive: initial (500ms) max (15m) up (1.5) down (0.9) threshold (10) randomization (0.3)
  max-randomization (2m)
Or a peer's defaults: preset:NAME, NAME = aws-standard | aws-2026 | aws-2026-dynamodb |
  aws-adaptive | grpc-a6 | backon-default | backoff-default (sources: the guide, Presets)
Shared by the calls of a client (all kinds):
  budget=grpc:MAX:RATIO | finagle:PCT:TTL:MIN_PER_SEC | aws:CAPACITY | aws-2026:CAPACITY
    | redis:URL:KEY:MAX:RATIO   throttle=sre:K | cubic
  retry-breaker=PCT%[:window=N|DUR][:min=N] (Brooker 2022: no retry while more than PCT% of
    the attempts in the window failed, PCT in [0, 100); window N attempts 1..=100000 or whole
    seconds 1s..=1h, default 10s; min attempts in the window before it refuses, default 10;
    first attempts always go)
  breaker=consecutive:N:OPEN | rate:PCT%:MIN_CALLS:OPEN[:window=N|DUR][:probes=N]
    [:slow=DUR@PCT%][:max-open=DUR]   hedge=DELAY:MAX (MAX 1..=5 copies)
Durations are humantime: 100ms, 1s, 1m30s, 15m.
Example: exponential:base=1s,factor=2,stop-at=10s"
    };
}
pub(crate) use spec_help_text;

/// A command's `--help` text after its options: the spec grammar, then the command's example
/// (`Example:` and one line `  $ rebound ...`, which `tests/help_examples.rs` runs as written).
macro_rules! with_example {
    ($example:expr) => {
        concat!($crate::spec_help::spec_help_text!(), "\n\n", $example)
    };
}
pub(crate) use with_example;

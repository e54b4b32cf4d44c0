//! Compile-fail tests of Rebound's executors (`tests/ui/*.rs` with the compiler's expected
//! messages in `*.stderr`): each case is a mistake a user makes with a hook closure, and the
//! message must name it at the setter, not at a later `.call()`. No code of its own.
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]

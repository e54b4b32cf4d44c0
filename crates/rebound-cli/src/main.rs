//! The `rebound` command.
fn main() {}

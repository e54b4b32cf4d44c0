//! Tests only: see `tests/browser.rs`. They run on `wasm32-unknown-unknown` in headless
//! Chromium (`.ci/run`); on other targets the crate is empty.
#![forbid(unsafe_code)]

//! Time in a browser (feature `browser`): a [`BrowserSleeper`] on `setTimeout` (gloo-timers)
//! and a [`BrowserClock`] on `performance.now()`, so that [`retry_async_on`](crate::retry_async_on)
//! runs in a page or a web worker, on the browser's event loop, without tokio.
//!
//! Build without `std` (`default-features = false, features = ["browser"]`): std's `Instant`
//! cannot be read on `wasm32-unknown-unknown` (it panics), so the crate's own
//! [`Instant`](crate::Instant) carries the time. Seeds for unseeded backoffs come from
//! `crypto.getRandomValues`.
//!
//! ```no_run
//! use rebound_retry::{retry_async_on, BrowserClock, BrowserSleeper, Policy};
//!
//! async fn fetch_with_retries() -> Result<String, rebound_retry::RetryError<String>> {
//!     retry_async_on(Policy::default().backoff(), || async { Err::<String, _>("offline".to_string()) },
//!         BrowserSleeper, BrowserClock)
//!     .call()
//!     .await
//! }
//! ```

use crate::clock::{AsyncSleeper, Clock};
use crate::time::{instant_from_epoch, Instant};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::{JsCast, JsValue};

#[cfg(all(feature = "std", target_arch = "wasm32", target_os = "unknown"))]
compile_error!(
    "rebound-retry: feature `browser` needs `default-features = false` (with `std`, Instant is \
     std's, which panics when read in a browser); add back `serde` if you need it"
);

/// The longest single `setTimeout` (2^31 - 1 ms, about 24.8 days): browsers fire a longer
/// one at once, so a longer wait is made of several.
const MAX_TIMEOUT_MS: u64 = i32::MAX as u64;

/// Waits with the browser's `setTimeout` (gloo-timers' `TimeoutFuture`), rounding up to whole
/// milliseconds; waits past 2^31 - 1 ms are chained, not cut short.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserSleeper;

/// The future of [`BrowserSleeper::sleep`].
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct BrowserSleep {
    current: TimeoutFuture,
    /// Milliseconds still to wait after `current`.
    rest_ms: u64,
}

impl BrowserSleep {
    fn new(total_ms: u64) -> Self {
        let now = total_ms.min(MAX_TIMEOUT_MS);
        BrowserSleep { current: TimeoutFuture::new(now as u32), rest_ms: total_ms - now }
    }
}

impl Future for BrowserSleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            if Pin::new(&mut self.current).poll(cx).is_pending() {
                return Poll::Pending;
            }
            if self.rest_ms == 0 {
                return Poll::Ready(());
            }
            *self = BrowserSleep::new(self.rest_ms);
        }
    }
}

impl AsyncSleeper for BrowserSleeper {
    type Sleep = BrowserSleep;
    fn sleep(&self, d: Duration) -> BrowserSleep {
        let ms = d.as_nanos().div_ceil(1_000_000);
        BrowserSleep::new(u64::try_from(ms).unwrap_or(u64::MAX))
    }
}

/// The page's monotonic clock, `performance.now()` (milliseconds since the page or worker
/// started); `Date.now()` where `performance` is missing.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now(&self) -> Instant {
        let ms = performance_now().unwrap_or_else(js_sys::Date::now);
        let since = Duration::try_from_secs_f64(ms / 1_000.0).unwrap_or(Duration::ZERO);
        instant_from_epoch(since)
    }
}

/// `performance.now()`, looked up on the global object (a window or a worker).
fn performance_now() -> Option<f64> {
    let perf = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance")).ok()?;
    let now = js_sys::Reflect::get(&perf, &JsValue::from_str("now")).ok()?;
    now.dyn_into::<js_sys::Function>().ok()?.call0(&perf).ok()?.as_f64()
}

//! Software prefetch: asking the CPU for a cache line an event will need, several events before
//! it is handled.
//!
//! Why: with millions of clients, the state an event touches (its user, its backoff state, the
//! server's slot) is almost never in cache, and each load stalls for a trip to main memory
//! (about 100 ns, more than the rest of the event's work). The event queue knows which events
//! come next ([`EventQueue::pop_ahead`](crate::queue::EventQueue::pop_ahead)), so the engine
//! prefetches their state while it handles the current ones: the trips overlap instead of
//! following one another (the "software pipelining" of Chen, Gibbons and Mowry, *Improving
//! index performance through prefetching*, SIGMOD 2001, applied to an event loop). A prefetch
//! is only a hint: it never changes a result, only how long the loads take.

/// Asks for the cache line holding `x` (`prefetcht0`, into every cache level), without waiting.
/// A no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    safe_arch::prefetch_t0(x);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = x;
}

/// [`prefetch`] of `items[i]`, if there is one.
#[inline(always)]
pub(crate) fn prefetch_at<T>(items: &[T], i: usize) {
    if let Some(x) = items.get(i) {
        prefetch(x);
    }
}

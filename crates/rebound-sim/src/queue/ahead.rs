//! What [`EventQueue::pop_ahead`](super::EventQueue::pop_ahead) shows of the events coming:
//! how far ahead, and with which look.

/// How many events ahead of the next one of its source
/// [`EventQueue::pop_ahead`](super::EventQueue::pop_ahead) shows an event with [`Ahead::Near`].
/// A cache miss takes about as long as a few events' work, so the state of an event this far
/// ahead arrives in time; tuned on `rebound storm --bench --clients N`.
pub const NEAR: usize = 8;
/// How many events ahead [`EventQueue::pop_ahead`](super::EventQueue::pop_ahead) shows an event
/// with [`Ahead::Far`]: twice [`NEAR`], so that what a far look fetched (a server's slot) can be
/// read by the near look to find what to fetch next (the slot's client).
pub const FAR: usize = 16;

/// Which look of [`EventQueue::pop_ahead`](super::EventQueue::pop_ahead) an event is shown with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ahead {
    /// [`NEAR`] events ahead of its source's next.
    Near,
    /// [`FAR`] events ahead.
    Far,
}

//! The server's target delay `d(c)` by concurrency, computed once per concurrency.

use crate::delay::DelayModel;
use crate::queue::{nanos, Nanos};

/// `d(c)` in nanoseconds for the concurrencies met: a table up to 2^20, and the last few
/// thousand beyond.
#[derive(Debug)]
pub(super) struct DelayTable {
    model: DelayModel,
    /// `d(c)` in nanoseconds, by concurrency.
    delays: Vec<Nanos>,
    /// Delays at concurrencies beyond `delays`' range, recently computed: `(c, d(c))`.
    recent: Vec<(u64, Nanos)>,
}

impl DelayTable {
    pub(super) fn new(model: DelayModel) -> DelayTable {
        DelayTable { model, delays: Vec::new(), recent: Vec::new() }
    }

    /// The target delay at concurrency `c`, in nanoseconds.
    pub(super) fn delay(&mut self, c: u64) -> Nanos {
        const CACHED: u64 = 1 << 20;
        if c >= CACHED {
            // Beyond the table (millions of requests in flight), the delays of the last few
            // thousand concurrencies met, by `c` modulo their number: the concurrency moves by
            // a few between ticks, and a `powf` per tick was 4 % of a 10 M-client run.
            const RECENT: usize = 1 << 12;
            if self.recent.is_empty() {
                // Key 0: below the table's end, so never looked up here.
                self.recent = vec![(0, 0); RECENT];
            }
            let slot = &mut self.recent[c as usize % RECENT];
            if slot.0 != c {
                *slot = (c, nanos(self.model.delay(c)));
            }
            return slot.1;
        }
        while self.delays.len() as u64 <= c {
            let next = self.delays.len() as u64;
            self.delays.push(nanos(self.model.delay(next)));
        }
        self.delays[c as usize]
    }
}

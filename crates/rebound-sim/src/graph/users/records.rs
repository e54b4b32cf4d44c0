//! Every user's current request: its attempt number, its tries, whether it waits for an answer
//! and whether an attempt of it failed (8 bytes a user), and the request's tally when services
//! make calls.

use std::ops::{Index, IndexMut};

/// A user's current request (8 bytes: issue 14 allows 100 bytes per client in all).
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::graph) struct User {
    /// The attempt number, never reset (so that a stale answer is recognised).
    pub seq: u32,
    /// Attempts of the current request so far (saturating at 2³⁰ − 1) and, in the top bits,
    /// whether the user waits for an answer ([`WAITING`]) and whether an attempt of the
    /// current request failed ([`FAILED`]).
    tries_waiting: u32,
}

/// The top bit of [`User::tries_waiting`].
const WAITING: u32 = 1 << 31;
/// The next bit of [`User::tries_waiting`]: the retrier heard of a failure of the current
/// request, so its backoff may have stepped ([`crate::retrier::Retrier::start_fresh`]).
const FAILED: u32 = 1 << 30;
/// The bits of [`User::tries_waiting`] that count attempts.
const TRIES: u32 = FAILED - 1;

impl User {
    /// Whether the user waits for the answer to its attempt `seq`.
    #[inline]
    pub fn waits_for(self, seq: u32) -> bool {
        self.tries_waiting & WAITING != 0 && self.seq == seq
    }

    #[inline]
    pub fn set_waiting(&mut self, waiting: bool) {
        self.tries_waiting =
            if waiting { self.tries_waiting | WAITING } else { self.tries_waiting & !WAITING };
    }

    /// Attempts of the current request so far.
    #[inline]
    pub fn tries(self) -> u32 {
        self.tries_waiting & TRIES
    }

    /// Whether an attempt of the current request failed (see [`User::set_failed`]).
    #[inline]
    pub fn failed(self) -> bool {
        self.tries_waiting & FAILED != 0
    }

    /// Notes that the retrier heard of a failure of the current request.
    #[inline]
    pub fn set_failed(&mut self) {
        self.tries_waiting |= FAILED;
    }

    /// A new request: no attempts yet, none failed.
    #[inline]
    pub fn clear_tries(&mut self) {
        self.tries_waiting &= WAITING;
    }

    /// Counts one more attempt, saturating at 2³⁰ − 1.
    #[inline]
    pub fn add_try(&mut self) {
        if self.tries() < TRIES {
            self.tries_waiting += 1;
        }
    }
}

/// Users from which [`Users::many`] holds: 65,536, whose backoff states take 1-1.5 MiB, as
/// much as a core's second-level cache on this machine. Below, the engine does not prefetch a
/// user's backoff state before each send (it is most likely cached, and the prefetch costs
/// instructions); from there on, a send that is shed at once reads it (issue 40: the ×100
/// three-tier stack, 7.8 M of 19.8 M user attempts shed during the outage, each a miss).
pub(in crate::graph) const MANY: usize = 1 << 16;

/// Every user's request, indexed by user.
#[derive(Debug, Default)]
pub(in crate::graph) struct Users {
    list: Vec<User>,
}

impl Users {
    /// `n` users, none of them waiting.
    pub fn new(n: u32) -> Users {
        Users { list: vec![User::default(); n as usize] }
    }

    /// Adds a user; its number is the old [`Users::len`].
    pub fn push(&mut self, u: User) {
        self.list.push(u);
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are so many users that their backoff states (16-24 bytes each) are
    /// unlikely to sit in the CPU's caches: [`MANY`] or more.
    #[inline]
    pub fn many(&self) -> bool {
        self.list.len() >= MANY
    }

    /// Asks the CPU for user `c`'s record ahead of its use ([`crate::prefetch`]).
    #[inline]
    pub fn prefetch(&self, c: u32) {
        crate::prefetch::prefetch_at(&self.list, c as usize);
    }

    /// Whether user `c` exists and an attempt of its current request failed.
    #[inline]
    pub fn failed(&self, c: u32) -> bool {
        self.list.get(c as usize).is_some_and(|u| u.failed())
    }

    /// Whether user `c` exists and waits for the answer to its attempt `seq`.
    #[inline]
    pub fn waits_for(&self, c: u32, seq: u32) -> bool {
        self.list.get(c as usize).is_some_and(|u| u.waits_for(seq))
    }
}

impl Index<usize> for Users {
    type Output = User;
    #[inline]
    fn index(&self, c: usize) -> &User {
        &self.list[c]
    }
}

impl IndexMut<usize> for Users {
    #[inline]
    fn index_mut(&mut self, c: usize) -> &mut User {
        &mut self.list[c]
    }
}

#[cfg(test)]
mod tests {
    use super::User;

    #[test]
    fn a_user_is_small() {
        // Issue 14: at most 100 bytes per client in all.
        assert_eq!(std::mem::size_of::<User>(), 8);
    }

    #[test]
    fn tries_saturate_beside_the_waiting_and_failed_bits() {
        let mut u = User { seq: 3, tries_waiting: super::TRIES - 1 };
        u.set_waiting(true);
        for _ in 0..3 {
            u.add_try();
        }
        assert_eq!(
            (u.tries(), u.waits_for(3), u.waits_for(4), u.failed()),
            ((1 << 30) - 1, true, false, false)
        );
        u.set_failed();
        u.set_waiting(false);
        assert_eq!((u.tries(), u.waits_for(3), u.failed()), ((1 << 30) - 1, false, true));
        u.set_waiting(true);
        u.clear_tries();
        assert_eq!((u.tries(), u.waits_for(3), u.failed()), (0, true, false));
    }
}

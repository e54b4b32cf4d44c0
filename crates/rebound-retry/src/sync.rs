//! Locks and atomics that build with and without std.
//!
//! With `std` a [`Mutex`] is std's (threads park while they wait); without it, `spin`'s spin
//! lock (no OS to park on). Either way `lock` never fails: a panic while a lock is held leaves
//! counters and windows that are still consistent (every update is a few plain stores), so a
//! poisoned lock is taken over rather than propagated.
//!
//! 64-bit atomics are core's where the target has them, else portable-atomic's lock-based
//! fallback (Cortex-M and other 32-bit microcontrollers).

use core::fmt;

#[cfg(target_has_atomic = "64")]
pub(crate) use core::sync::atomic::AtomicU64;
#[cfg(not(target_has_atomic = "64"))]
pub(crate) use portable_atomic::AtomicU64;

/// A mutual-exclusion lock whose `lock` cannot fail.
pub(crate) struct Mutex<T> {
    #[cfg(feature = "std")]
    inner: std::sync::Mutex<T>,
    #[cfg(not(feature = "std"))]
    inner: spin::Mutex<T>,
}

/// The guard of a [`Mutex`]: the lock is held until it drops.
#[cfg(feature = "std")]
pub(crate) type MutexGuard<'a, T> = std::sync::MutexGuard<'a, T>;
/// The guard of a [`Mutex`]: the lock is held until it drops.
#[cfg(not(feature = "std"))]
pub(crate) type MutexGuard<'a, T> = spin::MutexGuard<'a, T>;

impl<T> Mutex<T> {
    /// An unlocked lock holding `value`.
    pub(crate) const fn new(value: T) -> Self {
        #[cfg(feature = "std")]
        let inner = std::sync::Mutex::new(value);
        #[cfg(not(feature = "std"))]
        let inner = spin::Mutex::new(value);
        Mutex { inner }
    }

    /// Waits for the lock and takes it (taking over a lock poisoned by a panic).
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        #[cfg(feature = "std")]
        return self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        #[cfg(not(feature = "std"))]
        return self.inner.lock();
    }
}

impl<T: fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

//! A growable array kept in fixed pages of [`PAGE`] elements: indexed like a `Vec`, grown
//! without ever copying what it holds.
//!
//! Why not a `Vec`: a `Vec` doubles its buffer as it grows, and while it copies, the old buffer
//! and the new one are both in memory. When S5's server resumes at ten million clients its
//! requests in flight jump from a hundred thousand to five million in a tenth of a simulated
//! second; the slot array's last doubling (84 MB copied into 168 MB) made the run's peak of
//! memory, 18 bytes a client above what followed (`rebound storm --bench --clients 10000000`).
//! In pages, growing allocates one more page, and the array holds at most one page of spare
//! room. An index costs one more load, from the table of pages, which stays in cache (a
//! thousand pages for five million elements).

/// Elements per page.
pub const PAGE: usize = 4096;

/// A growable array in pages of [`PAGE`] elements; see the [module docs](self).
///
/// ```
/// use rebound_sim::paged::Paged;
/// let mut a = Paged::default();
/// for i in 0..10_000u32 {
///     a.push(i);
/// }
/// a[5000] = 7;
/// assert_eq!((a.len(), a[5000], a.get(9999), a.get(10_000)), (10_000, 7, Some(&9999), None));
/// ```
#[derive(Debug, Clone)]
pub struct Paged<T> {
    /// Every page but the last full; each has capacity [`PAGE`].
    pages: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Paged<T> {
    fn default() -> Self {
        Paged { pages: Vec::new(), len: 0 }
    }
}

impl<T> Paged<T> {
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `x`.
    #[inline]
    pub fn push(&mut self, x: T) {
        match self.pages.last_mut() {
            Some(page) if page.len() < PAGE => page.push(x),
            _ => {
                let mut page = Vec::with_capacity(PAGE);
                page.push(x);
                self.pages.push(page);
            }
        }
        self.len += 1;
    }

    /// Element `i`, if `i < len`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.pages.get(i / PAGE)?.get(i % PAGE)
    }

    /// Element `i` to change, if `i < len`.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.pages.get_mut(i / PAGE)?.get_mut(i % PAGE)
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.pages.iter().flatten()
    }
}

impl<T> std::ops::Index<usize> for Paged<T> {
    type Output = T;

    /// Element `i`; panics if `i >= len`, as a slice does.
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.pages[i / PAGE][i % PAGE]
    }
}

impl<T> std::ops::IndexMut<usize> for Paged<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.pages[i / PAGE][i % PAGE]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Pushes, writes and reads give what a `Vec` gives, and the array holds less than one
        /// page beyond its elements.
        #[test]
        fn a_paged_array_is_a_vec(ops in proptest::collection::vec((any::<u16>(), 0u32..1500), 1..40)) {
            let (mut paged, mut vec) = (Paged::default(), Vec::new());
            for (x, n) in ops {
                for k in 0..n {
                    paged.push(k);
                    vec.push(k);
                }
                let i = usize::from(x) % (vec.len() + 1);
                if let Some(v) = vec.get_mut(i) {
                    *v = u32::from(x);
                    paged[i] = u32::from(x);
                }
                prop_assert_eq!(paged.get(i), vec.get(i));
                prop_assert_eq!(paged.len(), vec.len());
                let room: usize = paged.pages.iter().map(Vec::capacity).sum();
                prop_assert!(room < vec.len() + PAGE);
            }
            prop_assert!(paged.iter().eq(vec.iter()));
        }
    }
}

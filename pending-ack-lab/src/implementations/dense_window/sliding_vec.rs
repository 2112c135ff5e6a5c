//! A `Vec` whose front is removed by moving a start index: the dense window's list of ledgers
//! and each ring's slots. Both are used as queues (pushed at the back, popped at the front) and
//! indexed far more often. A `VecDeque` index is an addition plus a wrap test on every access, and
//! a cycle spent as many instructions in that arithmetic as in the design's own lines; here an
//! index is one addition. The price: the removed front is reclaimed by moving the live items
//! down, when a push finds the buffer full and at least a quarter of the live count is dead, so
//! a push moves at most 4 items amortised; otherwise the buffer grows by 1.25×.

use std::ops::{Index, IndexMut};

/// A full buffer grows by one item in this many of those it holds (1.25×): dense ledgers waste
/// little, and a steady queue stops growing.
pub(crate) const GROWTH_ONE_IN: usize = 4;

pub(super) struct SlidingVec<T> {
    /// `items[start..]` are live. `items[..start]` were removed: left as they were when `T` is
    /// `Copy` (nothing to drop), as `T::default()` otherwise.
    items: Vec<T>,
    start: usize,
}

impl<T> Default for SlidingVec<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            start: 0,
        }
    }
}

impl<T> SlidingVec<T> {
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.items.len() - self.start
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.items.len() == self.start
    }

    /// Items the buffer holds room for, dead front included: the memory it keeps.
    #[inline]
    pub(super) fn capacity(&self) -> usize {
        self.items.capacity()
    }

    #[inline]
    pub(super) fn as_slice(&self) -> &[T] {
        self.items.get(self.start..).unwrap_or_default()
    }

    /// One test: `index` against the live count. (`items.get(start + index)` needs two, the
    /// addition's overflow and the buffer's end.)
    #[inline]
    pub(super) fn get(&self, index: usize) -> Option<&T> {
        if index >= self.len() {
            return None;
        }
        debug_assert!(self.start <= self.items.len());
        // SAFETY: every method keeps `start <= items.len()`, so `index < items.len() - start`
        // gives `start + index < items.len()` with no overflow: the item is in bounds.
        Some(unsafe { self.items.get_unchecked(self.start + index) })
    }

    #[inline]
    pub(super) fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        if index >= self.len() {
            return None;
        }
        debug_assert!(self.start <= self.items.len());
        // SAFETY: as in `get`.
        Some(unsafe { self.items.get_unchecked_mut(self.start + index) })
    }

    #[inline]
    pub(super) fn first(&self) -> Option<&T> {
        self.items.get(self.start)
    }

    #[inline]
    pub(super) fn first_mut(&mut self) -> Option<&mut T> {
        self.items.get_mut(self.start)
    }

    /// `items.last()` is live whenever there is one: every call that can empty the live items
    /// resets the buffer (`reset_if_empty`), so no dead item is ever last.
    #[inline]
    pub(super) fn last(&self) -> Option<&T> {
        self.items.last()
    }

    #[inline]
    pub(super) fn last_mut(&mut self) -> Option<&mut T> {
        self.items.last_mut()
    }

    /// Whether a push needs no room made first.
    #[inline]
    pub(super) fn has_room_at_back(&self) -> bool {
        self.items.len() < self.items.capacity()
    }

    #[inline(always)]
    pub(super) fn push(&mut self, item: T) {
        if !self.has_room_at_back() {
            self.make_room();
        }
        self.items.push(item);
    }

    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        self.reserve(1);
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let item = self.items.pop();
        self.reset_if_empty();
        item
    }

    /// Inserts at `index`, moving the shorter side: into the dead front when the items before
    /// `index` are fewer and there is room there, as a `VecDeque` does.
    pub(super) fn insert(&mut self, index: usize, item: T) {
        if self.start > 0 && index < self.len() / 2 {
            self.start -= 1;
            let at = self.start + index;
            self.items[self.start] = item;
            self.items[self.start..=at].rotate_left(1);
            return;
        }
        if !self.has_room_at_back() {
            self.reserve(1);
        }
        self.items.insert(self.start + index, item);
    }

    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.start = 0;
    }

    /// Makes room for `more` pushes: by moving the live items down when at least a quarter of
    /// them is dead front (so the moves stay amortised), else by growing to 1.25× the need.
    pub(super) fn reserve(&mut self, more: usize) {
        let live = self.len();
        if self.items.capacity() - self.items.len() >= more {
            return;
        }
        if self.start > 0 && self.start >= live / 4 {
            self.compact();
            if self.items.capacity() - live >= more {
                return;
            }
        }
        let target = (live + more).max(live + live / GROWTH_ONE_IN).max(8);
        self.compact();
        self.items.reserve_exact(target - live);
    }

    /// Gives back memory above `min` items (the dead front first).
    pub(super) fn shrink_to(&mut self, min: usize) {
        self.compact();
        self.items.shrink_to(min);
    }

    fn compact(&mut self) {
        self.items.drain(..self.start);
        self.start = 0;
    }

    /// An empty buffer starts again at its beginning, so a rolling window reuses it whole.
    #[inline]
    fn reset_if_empty(&mut self) {
        if self.is_empty() {
            self.clear();
        }
    }
}

impl<T: Copy> SlidingVec<T> {
    /// Removes the first `count` items (all of them when there are fewer).
    #[inline(always)]
    pub(super) fn advance(&mut self, count: usize) {
        self.start += count.min(self.len());
        self.reset_if_empty();
    }

    /// Removes the first item when there is a second, returning both: the buffer stays non-empty,
    /// so there is no reset to test for.
    #[inline(always)]
    pub(super) fn pop_first_of_several(&mut self) -> Option<(T, T)> {
        let first = *self.items.get(self.start)?;
        let second = *self.items.get(self.start + 1)?;
        self.start += 1;
        Some((first, second))
    }

    /// Resizes the live items to `len`, filling new ones at the back with `value`.
    pub(super) fn resize(&mut self, len: usize, value: T) {
        let more = len.saturating_sub(self.len());
        self.reserve(more);
        self.items.resize(self.start + len, value);
        self.reset_if_empty();
    }

    /// Puts `count` copies of `value` before the first item.
    pub(super) fn extend_front(&mut self, count: usize, value: T) {
        if self.start >= count {
            self.start -= count;
            self.items[self.start..self.start + count].fill(value);
        } else {
            self.reserve(count);
            self.items
                .splice(..self.start, std::iter::repeat_n(value, count));
            self.start = 0;
        }
    }
}

impl<T: Default> SlidingVec<T> {
    /// Removes the first item, leaving a default in its place until the next compaction.
    pub(super) fn pop_front(&mut self) -> Option<T> {
        let item = std::mem::take(self.items.get_mut(self.start)?);
        self.start += 1;
        self.reset_if_empty();
        Some(item)
    }

    /// Removes the item at `index`, moving the shorter side: the items before it move up one
    /// place (and the start with them) when they are fewer, as a `VecDeque` does. A window drains
    /// its oldest ledgers first, and moving every later one each time cost a list of 1,024
    /// ledgers a 32 KiB move per drained ledger.
    pub(super) fn remove(&mut self, index: usize) -> Option<T> {
        if index >= self.len() {
            return None;
        }
        let item = if index < self.len() / 2 {
            let at = self.start + index;
            self.items[self.start..=at].rotate_right(1);
            self.pop_front()?
        } else {
            self.items.remove(self.start + index)
        };
        self.reset_if_empty();
        Some(item)
    }
}

impl<T> Index<usize> for SlidingVec<T> {
    type Output = T;

    #[inline]
    fn index(&self, index: usize) -> &T {
        &self.as_slice()[index]
    }
}

impl<T> IndexMut<usize> for SlidingVec<T> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        let start = self.start;
        &mut self.items[start..][index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[derive(Debug, Clone)]
    enum Op {
        Push(u32),
        Pop,
        PopFirstOfSeveral,
        Advance(usize),
        Insert(usize, u32),
        Remove(usize),
        Resize(usize),
        ExtendFront(usize),
        Shrink,
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => any::<u32>().prop_map(Op::Push),
            2 => Just(Op::Pop),
            2 => Just(Op::PopFirstOfSeveral),
            4 => (0usize..6).prop_map(Op::Advance),
            1 => (0usize..40, any::<u32>()).prop_map(|(i, v)| Op::Insert(i, v)),
            1 => (0usize..40).prop_map(Op::Remove),
            1 => (0usize..40).prop_map(Op::Resize),
            1 => (0usize..5).prop_map(Op::ExtendFront),
            1 => Just(Op::Shrink),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        /// Every operation leaves the same items as a `VecDeque` given the same operations, and
        /// the buffer never holds more than its live items need plus the amortisation slack.
        #[test]
        fn behaves_like_a_deque(ops in proptest::collection::vec(op(), 0..300)) {
            let mut sliding = SlidingVec::default();
            let mut model = VecDeque::new();
            for op in ops {
                match op {
                    Op::Push(v) => {
                        sliding.push(v);
                        model.push_back(v);
                    }
                    Op::Pop => prop_assert_eq!(sliding.pop(), model.pop_back()),
                    Op::PopFirstOfSeveral => {
                        let expected = match (model.front(), model.get(1)) {
                            (Some(&first), Some(&second)) => Some((first, second)),
                            _ => None,
                        };
                        if expected.is_some() {
                            model.pop_front();
                        }
                        prop_assert_eq!(sliding.pop_first_of_several(), expected);
                    }
                    Op::Advance(n) => {
                        sliding.advance(n);
                        model.drain(..n.min(model.len()));
                    }
                    Op::Insert(i, v) => {
                        let i = i.min(model.len());
                        sliding.insert(i, v);
                        model.insert(i, v);
                    }
                    Op::Remove(i) => prop_assert_eq!(sliding.remove(i), model.remove(i)),
                    Op::Resize(n) => {
                        sliding.resize(n, 7);
                        model.resize(n, 7);
                    }
                    Op::ExtendFront(n) => {
                        sliding.extend_front(n, 9);
                        for _ in 0..n {
                            model.push_front(9);
                        }
                    }
                    Op::Shrink => sliding.shrink_to(0),
                    Op::Clear => {
                        sliding.clear();
                        model.clear();
                    }
                }
                prop_assert_eq!(sliding.len(), model.len());
                prop_assert!(sliding.as_slice().iter().eq(model.iter()));
                prop_assert_eq!(sliding.first(), model.front());
                prop_assert_eq!(sliding.last(), model.back());
                for i in 0..=model.len() {
                    prop_assert_eq!(sliding.get(i), model.get(i));
                }
            }
        }
    }

    #[test]
    fn a_rolling_queue_keeps_its_buffer_and_moves_few_items() {
        let mut sliding = SlidingVec::default();
        for v in 0..1_000u64 {
            sliding.push(v);
        }
        let capacity = sliding.capacity();
        for v in 1_000..100_000u64 {
            sliding.advance(1);
            sliding.push(v);
        }
        assert_eq!(sliding.len(), 1_000);
        assert_eq!(sliding.first(), Some(&99_000));
        assert!(
            sliding.capacity() <= capacity.max(1_000 + 1_000 / 4 + 1),
            "a steady queue grows no further: {} slots for 1,000 items",
            sliding.capacity()
        );
    }

    #[test]
    fn popping_from_the_front_leaves_defaults_and_drops_nothing_twice() {
        let mut ledgers: SlidingVec<Vec<u8>> = SlidingVec::default();
        for i in 0..10u8 {
            ledgers.push(vec![i; 3]);
        }
        assert_eq!(ledgers.pop_front(), Some(vec![0; 3]));
        assert_eq!(ledgers.pop_front(), Some(vec![1; 3]));
        assert_eq!(ledgers.first(), Some(&vec![2; 3]));
        assert_eq!(ledgers.remove(0), Some(vec![2; 3]));
        assert_eq!(ledgers.len(), 7);
        for _ in 0..7 {
            assert!(ledgers.pop_front().is_some());
        }
        assert_eq!(ledgers.pop_front(), None);
        assert!(ledgers.is_empty());
    }
}

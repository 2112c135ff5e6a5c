//! A ledger's ring of packed values (entries `base ..`, `ABSENT` for holes) and the spare rings
//! kept for reuse; the layout and its memory policy are described in [`super`].

use std::collections::{BTreeMap, VecDeque};

use crate::PendingAck;

/// A ring slot holding no entry (never a valid packed value: its top bit is set).
const ABSENT: PendingAck = PendingAck::ABSENT;

/// A ring may span at most this many slots per entry (plus [`RING_SLACK`]) before its ledger turns
/// sparse: worst case 32 bytes of ring per entry.
const SLOTS_PER_ENTRY: u64 = 4;
const RING_SLACK: u64 = 64;

/// Spare rings may hold up to 2 slots per live entry plus this many (8 KiB).
const SPARE_FLOOR_SLOTS: usize = 1_024;

/// Entries `base .. base + slots.len()`; the first and last slots are present whenever `len > 0`.
#[derive(Default)]
pub(super) struct Ring {
    /// The first entry's id (its slot is present whenever `len > 0`).
    pub(super) base: u64,
    /// Present (non-`ABSENT`) slots.
    pub(super) len: usize,
    slots: VecDeque<PendingAck>,
}

/// Emptied rings kept for reuse, within a memory budget.
#[derive(Default)]
pub(super) struct Spares {
    /// Boxed as the stores hold them, so reuse moves a pointer and allocates nothing.
    #[allow(clippy::vec_box, reason = "the boxes are reused as they are")]
    rings: Vec<Box<Ring>>,
    /// Total capacity of `rings`, in slots.
    slots: usize,
}

impl Spares {
    /// At most 2 slots per live entry plus a floor.
    fn budget(live_entries: usize) -> usize {
        2 * live_entries + SPARE_FLOOR_SLOTS
    }

    pub(super) fn push(&mut self, ring: Box<Ring>, live_entries: usize) {
        let slots = ring.slots.capacity();
        if self.slots + slots <= Self::budget(live_entries) {
            self.slots += slots;
            self.rings.push(ring);
        }
    }

    /// A spare ring, cleared, or a new one.
    pub(super) fn pop(&mut self) -> Box<Ring> {
        match self.rings.pop() {
            Some(mut ring) => {
                self.slots -= ring.slots.capacity();
                ring.len = 0;
                ring.slots.clear();
                ring
            }
            None => Box::default(),
        }
    }

    /// Drops spares until they fit the budget for `live_entries`.
    #[inline]
    pub(super) fn trim(&mut self, live_entries: usize) {
        if self.slots > Self::budget(live_entries) {
            self.drop_over_budget(live_entries);
        }
    }

    #[cold]
    #[inline(never)]
    fn drop_over_budget(&mut self, live_entries: usize) {
        while self.slots > Self::budget(live_entries) {
            match self.rings.pop() {
                Some(ring) => self.slots -= ring.slots.capacity(),
                None => self.slots = 0,
            }
        }
    }
}

/// A ring refused an entry because it would be too sparse.
pub(super) struct TooSparse;

// The small methods are `#[inline]`: the map calls them from another module, which may land in
// another codegen unit, where they were calls (`trim_front` alone cost 37 instructions a cycle).
impl Ring {
    #[inline]
    fn offset(&self, entry: u64) -> Option<usize> {
        let offset = entry.checked_sub(self.base)?;
        (offset < self.slots.len() as u64).then_some(offset as usize)
    }

    #[inline]
    pub(super) fn get(&self, entry: u64) -> Option<PendingAck> {
        // `get` checks the offset against the length once (an index would check it again).
        let offset = usize::try_from(entry.checked_sub(self.base)?).ok()?;
        let ack = *self.slots.get(offset)?;
        (ack != ABSENT).then_some(ack)
    }

    #[inline]
    pub(super) fn get_mut(&mut self, entry: u64) -> Option<&mut PendingAck> {
        let offset = self.offset(entry)?;
        let ack = &mut self.slots[offset];
        (*ack != ABSENT).then_some(ack)
    }

    fn span_allowed(&self, span: u64) -> bool {
        span <= SLOTS_PER_ENTRY * (self.len as u64 + 1) + RING_SLACK
    }

    /// Makes room for `more` slots, growing by 1.25× rather than doubling.
    fn reserve(&mut self, more: usize) {
        let needed = self.slots.len() + more;
        let capacity = self.slots.capacity();
        if needed > capacity {
            let target = needed.max(capacity + capacity / 4).max(8);
            self.slots.reserve_exact(target - self.slots.len());
        }
    }

    /// Stores `ack`; `Ok(true)` when the entry is new. The two hot cases (a present slot, and
    /// appending the next entry id with room to spare) stay inline; the rest is `grow`.
    #[inline(always)]
    pub(super) fn insert(&mut self, entry: u64, ack: PendingAck) -> Result<bool, TooSparse> {
        if let Some(offset) = self.offset(entry) {
            let slot = &mut self.slots[offset];
            let new = *slot == ABSENT;
            *slot = ack;
            self.len += usize::from(new);
            return Ok(new);
        }
        // `checked_sub`, not `wrapping_sub`: entry 0 after a ring ending at u64::MAX is not "the
        // next entry" (the model test found that wrap).
        if self.len > 0
            && entry.checked_sub(self.base) == Some(self.slots.len() as u64)
            && self.slots.len() < self.slots.capacity()
        {
            self.slots.push_back(ack);
            self.len += 1;
            return Ok(true);
        }
        self.grow(entry, ack)
    }

    /// Inserts an entry outside the current span: the first one, one that needs more capacity,
    /// one after a gap or before the base.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, entry: u64, ack: PendingAck) -> Result<bool, TooSparse> {
        if self.len == 0 {
            self.slots.clear();
            self.reserve(1);
            self.slots.push_back(ack);
            self.base = entry;
            self.len = 1;
            return Ok(true);
        }
        if entry > self.base {
            let span = (entry - self.base).saturating_add(1);
            if !self.span_allowed(span) {
                return Err(TooSparse);
            }
            let grow = span as usize - self.slots.len();
            self.reserve(grow);
            if grow > 1 {
                self.slots.resize(span as usize - 1, ABSENT);
            }
            self.slots.push_back(ack);
        } else {
            let grow = self.base - entry;
            let span = grow.saturating_add(self.slots.len() as u64);
            if !self.span_allowed(span) {
                return Err(TooSparse);
            }
            self.reserve(grow as usize);
            for _ in 1..grow {
                self.slots.push_front(ABSENT);
            }
            self.slots.push_front(ack);
            self.base = entry;
        }
        self.len += 1;
        Ok(true)
    }

    #[inline]
    pub(super) fn remove(&mut self, entry: u64) -> Option<PendingAck> {
        let offset = self.offset(entry)?;
        let ack = std::mem::replace(&mut self.slots[offset], ABSENT);
        if ack == ABSENT {
            return None;
        }
        self.len -= 1;
        if self.len == 0 {
            self.slots.clear();
        } else if offset == 0 {
            self.trim_front();
        } else if offset == self.slots.len() - 1 {
            while self.slots.back() == Some(&ABSENT) {
                self.slots.pop_back();
            }
        }
        Some(ack)
    }

    #[inline]
    fn trim_front(&mut self) {
        while self.slots.front() == Some(&ABSENT) {
            self.slots.pop_front();
            self.base += 1;
        }
    }

    /// Removes entries ≤ `mark` from the front, visiting them ascending, then gives back memory
    /// if the ring is mostly empty. The removed prefix is walked as the ring's two slices and
    /// dropped at once (popping slot by slot cost about 29 instructions an entry).
    pub(super) fn take_up_to(
        &mut self,
        ledger: u64,
        mark: u64,
        on_removed: &mut impl FnMut(u64, u64, PendingAck),
    ) {
        let Some(last) = mark.checked_sub(self.base) else {
            return;
        };
        let taken = usize::try_from(last)
            .map_or(usize::MAX, |last| last.saturating_add(1))
            .min(self.slots.len());
        let holes_possible = self.len < self.slots.len();
        let (front, back) = self.slots.as_slices();
        let in_front = taken.min(front.len());
        let removed = visit_slots(
            ledger,
            self.base,
            &front[..in_front],
            holes_possible,
            on_removed,
        ) + visit_slots(
            ledger,
            self.base.wrapping_add(in_front as u64),
            &back[..taken - in_front],
            holes_possible,
            on_removed,
        );
        self.len -= removed;
        self.slots.drain(..taken);
        // An emptied ring's base is set by its next entry (and may have been u64::MAX).
        if !self.slots.is_empty() {
            self.base += taken as u64;
            self.trim_front();
        }
        let capacity = self.slots.capacity();
        if capacity > 64 && capacity > 4 * self.slots.len() {
            self.slots
                .shrink_to(self.slots.len() + self.slots.len() / 4);
        }
    }

    pub(super) fn visit(&self, ledger: u64, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        let holes_possible = self.len < self.slots.len();
        let (front, back) = self.slots.as_slices();
        visit_slots(ledger, self.base, front, holes_possible, visit);
        visit_slots(
            ledger,
            self.base.wrapping_add(front.len() as u64),
            back,
            holes_possible,
            visit,
        );
    }

    pub(super) fn into_sparse(self) -> BTreeMap<u64, PendingAck> {
        let mut sparse = BTreeMap::new();
        self.visit(0, &mut |_, entry, ack| {
            sparse.insert(entry, ack);
        });
        sparse
    }
}

/// Visits the present slots of `slots`, the first holding entry `first`; returns how many were
/// present. Plain loops over one slice (the ring's iterator chains its two slices and checks
/// which one it is in at every step). A ring with no holes (`holes_possible` false: its count
/// equals its span) is visited without a test per slot, so the compiler unrolls the loop around
/// the inlined callback; otherwise one test covers a chunk of [`CHUNK`] slots, and only chunks
/// with a hole test slot by slot. (Measured on `remove-all-up-to` and `for-each-scan` with
/// gungraun; see the lab's notes.)
#[inline(always)]
fn visit_slots(
    ledger: u64,
    first: u64,
    slots: &[PendingAck],
    holes_possible: bool,
    visit: &mut impl FnMut(u64, u64, PendingAck),
) -> usize {
    if !holes_possible {
        visit_all(ledger, first, slots, visit);
        return slots.len();
    }
    let mut entry = first;
    // Holes are counted, not entries: they are the rare branch.
    let mut holes = 0;
    let mut chunks = slots.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        // `ABSENT` is the only slot value with its top bit set: one test for a whole chunk.
        let any_hole = chunk.iter().fold(0, |bits, ack| bits | ack.to_bits()) >> 63 != 0;
        if any_hole {
            holes += visit_each(ledger, entry, chunk, visit);
        } else {
            visit_all(ledger, entry, chunk, visit);
        }
        entry = entry.wrapping_add(CHUNK as u64);
    }
    holes += visit_each(ledger, entry, chunks.remainder(), visit);
    slots.len() - holes
}

/// Slots per hole test in [`visit_slots`].
const CHUNK: usize = 8;

/// Visits every slot of `slots`, none of them a hole, the first holding entry `first`.
#[inline(always)]
fn visit_all(
    ledger: u64,
    first: u64,
    slots: &[PendingAck],
    visit: &mut impl FnMut(u64, u64, PendingAck),
) {
    for (i, &ack) in slots.iter().enumerate() {
        visit(ledger, first.wrapping_add(i as u64), ack);
    }
}

/// Visits the present slots of `slots` one by one; returns the holes.
#[inline(always)]
fn visit_each(
    ledger: u64,
    first: u64,
    slots: &[PendingAck],
    visit: &mut impl FnMut(u64, u64, PendingAck),
) -> usize {
    let mut holes = 0;
    let mut entry = first;
    for &ack in slots {
        if ack == ABSENT {
            holes += 1;
        } else {
            visit(ledger, entry, ack);
        }
        entry = entry.wrapping_add(1);
    }
    holes
}

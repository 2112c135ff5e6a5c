//! A ledger's ring of packed values (entries `base ..`, `ABSENT` for holes) and the spare rings
//! kept for reuse; the layout and its memory policy are described in [`super`].

use std::collections::BTreeMap;

use super::Runs;
use super::sliding_vec::SlidingVec;
use crate::PendingAck;

/// A ring slot holding no entry (never a valid packed value: its top bit is set).
const ABSENT: PendingAck = PendingAck::ABSENT;

/// A ring may span at most this many slots per entry (plus [`RING_SLACK`]) before its ledger turns
/// sparse: worst case 32 bytes of ring per entry.
pub(crate) const SLOTS_PER_ENTRY: u64 = 4;
const RING_SLACK: u64 = 64;

/// Spare rings may hold up to [`SPARE_SLOTS_PER_ENTRY`] slots per live entry plus this many
/// (8 KiB).
pub(crate) const SPARE_FLOOR_SLOTS: usize = 1_024;
pub(crate) const SPARE_SLOTS_PER_ENTRY: usize = 2;

/// A prefix cleanup shrinks a ring that uses less than one slot in this many of its capacity.
pub(crate) const SHRINK_BELOW_ONE_IN: usize = 4;

/// Entries `base .. base + slots.len()`; the first and last slots are present whenever `len > 0`.
#[derive(Default)]
pub(super) struct Ring {
    /// The first entry's id (its slot is present whenever `len > 0`).
    pub(super) base: u64,
    /// Present (non-`ABSENT`) slots.
    pub(super) len: usize,
    slots: SlidingVec<PendingAck>,
}

/// Emptied rings kept for reuse, within a memory budget.
#[derive(Default)]
pub(super) struct Spares {
    /// Boxed as the stores hold them, so reuse moves a pointer and allocates nothing.
    #[allow(clippy::vec_box, reason = "the boxes are reused as they are")]
    rings: Vec<Box<Ring>>,
    /// Total capacity of `rings`, in slots.
    slots: usize,
    /// The live-entry count below which `slots` is over budget (0: never), kept so a remove's
    /// check is one comparison: `slots > 2 * live + floor` ⟺ `live < ⌈(slots − floor) / 2⌉`.
    over_budget_below: usize,
}

impl Spares {
    /// At most [`SPARE_SLOTS_PER_ENTRY`] slots per live entry plus a floor.
    fn budget(live_entries: usize) -> usize {
        SPARE_SLOTS_PER_ENTRY * live_entries + SPARE_FLOOR_SLOTS
    }

    pub(super) fn push(&mut self, ring: Box<Ring>, live_entries: usize) {
        let slots = ring.slots.capacity();
        if self.slots + slots <= Self::budget(live_entries) {
            self.set_slots(self.slots + slots);
            self.rings.push(ring);
        }
    }

    fn set_slots(&mut self, slots: usize) {
        self.slots = slots;
        self.over_budget_below = slots
            .saturating_sub(SPARE_FLOOR_SLOTS)
            .div_ceil(SPARE_SLOTS_PER_ENTRY);
    }

    /// A spare ring, cleared, or a new one.
    pub(super) fn pop(&mut self) -> Box<Ring> {
        match self.rings.pop() {
            Some(mut ring) => {
                self.set_slots(self.slots - ring.slots.capacity());
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
        if live_entries < self.over_budget_below {
            self.drop_over_budget(live_entries);
        }
    }

    #[cold]
    #[inline(never)]
    fn drop_over_budget(&mut self, live_entries: usize) {
        while self.slots > Self::budget(live_entries) {
            match self.rings.pop() {
                Some(ring) => self.set_slots(self.slots - ring.slots.capacity()),
                None => self.set_slots(0),
            }
        }
    }
}

/// A ring refused an entry because it would be too sparse.
pub(super) struct TooSparse;

// The small methods are `#[inline]`: the map calls them from another module, which may land in
// another codegen unit, where they were calls (`trim_front` alone cost 37 instructions a cycle).
impl Ring {
    /// Where `entry` would be among the slots (not checked against their count).
    #[inline]
    fn offset(&self, entry: u64) -> Option<usize> {
        usize::try_from(entry.checked_sub(self.base)?).ok()
    }

    #[inline]
    fn slot_mut(&mut self, entry: u64) -> Option<&mut PendingAck> {
        let offset = self.offset(entry)?;
        self.slots.get_mut(offset)
    }

    #[inline]
    pub(super) fn get(&self, entry: u64) -> Option<PendingAck> {
        // `get` checks the offset against the length once (an index would check it again).
        let ack = *self.slots.get(self.offset(entry)?)?;
        (ack != ABSENT).then_some(ack)
    }

    #[inline]
    pub(super) fn get_mut(&mut self, entry: u64) -> Option<&mut PendingAck> {
        let ack = self.slot_mut(entry)?;
        (*ack != ABSENT).then_some(ack)
    }

    fn span_allowed(&self, span: u64) -> bool {
        span <= SLOTS_PER_ENTRY * (self.len as u64 + 1) + RING_SLACK
    }

    /// Stores `ack`; `Ok(true)` when the entry is new.
    #[inline(always)]
    pub(super) fn insert(&mut self, entry: u64, ack: PendingAck) -> Result<bool, TooSparse> {
        match self.insert_in_place(entry, ack) {
            Some(new) => Ok(new),
            None => self.grow(entry, ack),
        }
    }

    /// The two hot cases of [`Ring::insert`], kept inline: a slot in the span, and the id after
    /// the last slot with room to spare (a dispatch). `Some(true)` when the entry is new; `None`
    /// (nothing changed) when the ring must grow.
    #[inline(always)]
    pub(super) fn insert_in_place(&mut self, entry: u64, ack: PendingAck) -> Option<bool> {
        // One offset for both cases. `checked_sub`, not `wrapping_sub`: entry 0 after a ring
        // ending at u64::MAX is not "the next entry" (the model test found that wrap).
        let offset = self.offset(entry)?;
        if let Some(slot) = self.slots.get_mut(offset) {
            let new = *slot == ABSENT;
            *slot = ack;
            self.len += usize::from(new);
            return Some(new);
        }
        // An empty ring holds no slots, so its next entry is its base (whatever that was): the
        // push is right there too, with no test of the count.
        if offset != self.slots.len() || !self.slots.has_room_at_back() {
            return None;
        }
        self.slots.push(ack);
        self.len += 1;
        Some(true)
    }

    /// Inserts an entry outside the current span: the first one, one that needs more capacity,
    /// one after a gap or before the base.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, entry: u64, ack: PendingAck) -> Result<bool, TooSparse> {
        if self.len == 0 {
            self.slots.clear();
            self.slots.push(ack);
            self.base = entry;
            self.len = 1;
            return Ok(true);
        }
        if entry > self.base {
            let span = (entry - self.base).saturating_add(1);
            if !self.span_allowed(span) {
                return Err(TooSparse);
            }
            self.slots.resize(span as usize - 1, ABSENT);
            self.slots.push(ack);
        } else {
            let grow = self.base - entry;
            let span = grow.saturating_add(self.slots.len() as u64);
            if !self.span_allowed(span) {
                return Err(TooSparse);
            }
            self.slots.extend_front(grow as usize, ABSENT);
            self.slots[0] = ack;
            self.base = entry;
        }
        self.len += 1;
        Ok(true)
    }

    /// Removes `entry` (`None` when it is not held).
    #[inline]
    pub(super) fn remove(&mut self, entry: u64) -> Option<PendingAck> {
        self.remove_first_of_several(entry)
            .or_else(|| self.remove_other(entry))
    }

    /// The ack of the first entry of several (the front of a near-FIFO window), kept in line:
    /// `None`, with nothing changed, when `entry` is not the first or is the only one. The first
    /// and last slots are present whenever the ring holds anything, so two slots are two
    /// entries: the slots' one length test stands for the count's.
    #[inline(always)]
    pub(super) fn remove_first_of_several(&mut self, entry: u64) -> Option<PendingAck> {
        if entry != self.base {
            return None;
        }
        let (ack, next) = self.slots.pop_first_of_several()?;
        self.base += 1;
        self.len -= 1;
        if next == ABSENT {
            self.trim_front();
        }
        Some(ack)
    }

    /// Removes `entry` by its offset: any entry, the only one included ([`Ring::remove`]'s
    /// general path).
    pub(super) fn remove_other(&mut self, entry: u64) -> Option<PendingAck> {
        let offset = self.offset(entry)?;
        let ack = std::mem::replace(self.slots.get_mut(offset)?, ABSENT);
        if ack == ABSENT {
            return None;
        }
        self.len -= 1;
        if self.len == 0 {
            self.slots.clear();
        } else if offset == 0 {
            self.trim_front();
        } else if offset == self.slots.len() - 1 {
            while self.slots.last() == Some(&ABSENT) {
                self.slots.pop();
            }
        }
        Some(ack)
    }

    #[inline(always)]
    fn trim_front(&mut self) {
        while self.slots.first() == Some(&ABSENT) {
            self.slots.advance(1);
            self.base += 1;
        }
    }

    /// Removes entries ≤ `mark` from the front, handing them to `runs` as one slice (ascending),
    /// then gives back memory if the ring is mostly empty. The removed prefix is dropped at once
    /// (popping slot by slot cost about 29 instructions an entry).
    #[inline(always)]
    pub(super) fn take_up_to(&mut self, ledger: u64, mark: u64, runs: &mut impl Runs) {
        let Some(last) = mark.checked_sub(self.base) else {
            return;
        };
        let taken = usize::try_from(last)
            .map_or(usize::MAX, |last| last.saturating_add(1))
            .min(self.slots.len());
        let holes_possible = self.len < self.slots.len();
        let prefix = self.slots.as_slice().get(..taken).unwrap_or_default();
        self.len -= runs.run(ledger, self.base, prefix, holes_possible);
        self.slots.advance(taken);
        // An emptied ring's base is set by its next entry (and may have been u64::MAX).
        if !self.slots.is_empty() {
            self.base += taken as u64;
            self.trim_front();
        }
        let capacity = self.slots.capacity();
        if capacity > 64 && capacity > SHRINK_BELOW_ONE_IN * self.slots.len() {
            self.slots
                .shrink_to(self.slots.len() + self.slots.len() / 4);
        }
    }

    /// Hands every slot to `runs` as one slice.
    #[inline(always)]
    pub(super) fn visit(&self, ledger: u64, runs: &mut impl Runs) {
        let holes_possible = self.len < self.slots.len();
        runs.run(ledger, self.base, self.slots.as_slice(), holes_possible);
    }

    pub(super) fn into_sparse(self) -> BTreeMap<u64, PendingAck> {
        let mut sparse = BTreeMap::new();
        let mut insert = |_, entry, ack| {
            sparse.insert(entry, ack);
        };
        self.visit(0, &mut insert);
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
pub(super) fn visit_slots(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one comparison a remove makes says what the budget says, for every count around it.
    #[test]
    fn the_precomputed_threshold_agrees_with_the_budget() {
        let mut spares = Spares::default();
        for slots in 0..3 * SPARE_FLOOR_SLOTS {
            spares.set_slots(slots);
            for live in 0..2 * SPARE_FLOOR_SLOTS {
                assert_eq!(
                    live < spares.over_budget_below,
                    slots > Spares::budget(live),
                    "{slots} slots, {live} live entries"
                );
            }
        }
    }
}

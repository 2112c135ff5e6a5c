//! `dense-window`: a layout built from how pending acks behave. Within a ledger, entries are
//! dispatched in increasing, nearly contiguous entry-id order, acked mostly near-FIFO and cleaned
//! up by prefix; ledgers arrive in increasing order and leave from the front. (This text is also
//! the design notes of the lab's report, so it is written once.)
//!
//! - Outer level: a `VecDeque` of ledgers sorted by id, 32 bytes per ledger. New ledgers are
//!   pushed at the back, drained ones popped at the front; lookups try the newest and oldest
//!   ledger, then a hinted binary search.
//! - Per ledger, adaptive storage:
//!   - `One`: a single entry stored inline (no allocation; the 1-entry-per-ledger sparse case);
//!   - `Ring`: a ring of packed values indexed by `entry − base`, `ABSENT` for holes. Exact ops are
//!     an index computation; prefix cleanup pops from the front and advances `base`;
//!   - `Sparse`: an ordered `BTreeMap`, taken when a ring would hold more than 4 slots per entry
//!     (huge gaps between entry ids); it stays sparse until the ledger empties.
//! - Memory policy: rings grow by 1.25× (not 2×) so dense ledgers cost about 8–10 bytes per entry;
//!   prefix cleanup (`remove_all_up_to`) shrinks a ring that holds less than a quarter of its
//!   capacity; rings emptied by single removes (a rolling window) are kept as spares and reused
//!   by the next ledgers, so a steady dispatch/ack cycle allocates nothing even when many small
//!   ledgers drain out of order. Spares hold at most 2 slots per live entry plus 1,024 slots
//!   (`SPARE_FLOOR_SLOTS`). Cleanup paths (`remove_all_up_to`, `drain`) drop the spares.
//! - Costs: single removes never convert a ring: it only shrinks in span, so a ring thinned by
//!   random single acks keeps its span (8 bytes per slot) until its front is acked or a cleanup
//!   runs; a ledger that turned sparse stays a `BTreeMap` until it empties; an entry far before a
//!   ring's base grows the ring at the front (bounded by the same density limit).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{Mark, PendingAck, PendingAcks};

/// A ring slot holding no entry (never a valid packed value: its top bit is set).
const ABSENT: PendingAck = PendingAck::ABSENT;

/// A ring may span at most this many slots per entry (plus [`RING_SLACK`]) before its ledger turns
/// sparse: worst case 32 bytes of ring per entry.
const SLOTS_PER_ENTRY: u64 = 4;
const RING_SLACK: u64 = 64;

/// Spare rings may hold up to 2 slots per live entry plus this many (8 KiB).
const SPARE_FLOOR_SLOTS: usize = 1_024;

#[derive(Default)]
pub struct DenseWindow {
    /// Ascending by id, no empty ledgers.
    ledgers: VecDeque<Ledger>,
    len: usize,
    /// Rings of ledgers that emptied through `remove`, reused by the next ledgers that need one.
    spares: Spares,
    /// Index of the ledger the last binary search found: round-robin and burst access to a
    /// middle ledger skips the search. Only a hint (checked before use); atomic so `&self`
    /// lookups can update it and the map stays `Sync`.
    hint: AtomicUsize,
}

struct Ledger {
    id: u64,
    store: Store,
}

/// 24 bytes, so a one-entry ledger costs 32 bytes in the outer deque.
enum Store {
    One {
        entry: u64,
        ack: PendingAck,
    },
    Ring(Box<Ring>),
    #[allow(clippy::box_collection, reason = "boxed so `Store` stays 24 bytes")]
    Sparse(Box<BTreeMap<u64, PendingAck>>),
}

/// Entries `base .. base + slots.len()`; the first and last slots are present whenever `len > 0`.
#[derive(Default)]
struct Ring {
    base: u64,
    /// Present (non-`ABSENT`) slots.
    len: usize,
    slots: VecDeque<PendingAck>,
}

/// Emptied rings kept for reuse, within a memory budget.
#[derive(Default)]
struct Spares {
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

    fn push(&mut self, ring: Box<Ring>, live_entries: usize) {
        let slots = ring.slots.capacity();
        if self.slots + slots <= Self::budget(live_entries) {
            self.slots += slots;
            self.rings.push(ring);
        }
    }

    /// A spare ring, cleared, or a new one.
    fn pop(&mut self) -> Box<Ring> {
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
    fn trim(&mut self, live_entries: usize) {
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
struct TooSparse;

impl Ring {
    fn offset(&self, entry: u64) -> Option<usize> {
        let offset = entry.checked_sub(self.base)?;
        (offset < self.slots.len() as u64).then_some(offset as usize)
    }

    fn get(&self, entry: u64) -> Option<PendingAck> {
        // `get` checks the offset against the length once (an index would check it again).
        let offset = usize::try_from(entry.checked_sub(self.base)?).ok()?;
        let ack = *self.slots.get(offset)?;
        (ack != ABSENT).then_some(ack)
    }

    fn get_mut(&mut self, entry: u64) -> Option<&mut PendingAck> {
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
    fn insert(&mut self, entry: u64, ack: PendingAck) -> Result<bool, TooSparse> {
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
    fn remove(&mut self, entry: u64) -> Option<PendingAck> {
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

    fn trim_front(&mut self) {
        while self.slots.front() == Some(&ABSENT) {
            self.slots.pop_front();
            self.base += 1;
        }
    }

    /// Removes entries ≤ `mark` from the front, visiting them ascending, then gives back memory
    /// if the ring is mostly empty. The removed prefix is walked as the ring's two slices and
    /// dropped at once (popping slot by slot cost about 29 instructions an entry).
    fn take_up_to(
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

    fn visit(&self, ledger: u64, visit: &mut impl FnMut(u64, u64, PendingAck)) {
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

    fn into_sparse(self) -> BTreeMap<u64, PendingAck> {
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
    let mut entry = first;
    if !holes_possible {
        for &ack in slots {
            visit(ledger, entry, ack);
            entry = entry.wrapping_add(1);
        }
        return slots.len();
    }
    // Holes are counted, not entries: they are the rare branch.
    let mut holes = 0;
    let mut chunks = slots.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        // `ABSENT` is the only slot value with its top bit set: one test for a whole chunk.
        let any_hole = chunk.iter().fold(0, |bits, ack| bits | ack.to_bits()) >> 63 != 0;
        if any_hole {
            holes += visit_each(ledger, entry, chunk, visit);
        } else {
            for (i, &ack) in chunk.iter().enumerate() {
                visit(ledger, entry.wrapping_add(i as u64), ack);
            }
        }
        entry = entry.wrapping_add(CHUNK as u64);
    }
    holes += visit_each(ledger, entry, chunks.remainder(), visit);
    slots.len() - holes
}

/// Slots per hole test in [`visit_slots`].
const CHUNK: usize = 8;

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

impl Store {
    fn len(&self) -> usize {
        match self {
            Store::One { .. } => 1,
            Store::Ring(ring) => ring.len,
            Store::Sparse(sparse) => sparse.len(),
        }
    }

    fn get(&self, entry: u64) -> Option<PendingAck> {
        match self {
            Store::One { entry: e, ack } => (*e == entry).then_some(*ack),
            Store::Ring(ring) => ring.get(entry),
            Store::Sparse(sparse) => sparse.get(&entry).copied(),
        }
    }

    fn get_mut(&mut self, entry: u64) -> Option<&mut PendingAck> {
        match self {
            Store::One { entry: e, ack } => (*e == entry).then_some(ack),
            Store::Ring(ring) => ring.get_mut(entry),
            Store::Sparse(sparse) => sparse.get_mut(&entry),
        }
    }

    fn visit(&self, ledger: u64, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        match self {
            Store::One { entry, ack } => visit(ledger, *entry, *ack),
            Store::Ring(ring) => ring.visit(ledger, visit),
            Store::Sparse(sparse) => {
                for (&entry, &ack) in sparse.iter() {
                    visit(ledger, entry, ack);
                }
            }
        }
    }
}

impl DenseWindow {
    /// Where ledger `id` is (`Ok`) or would go (`Err`).
    fn position(&self, id: u64) -> Result<usize, usize> {
        // The newest ledger first, and the oldest only when it is not that one: each end of the
        // deque is an index computation of its own.
        let count = self.ledgers.len();
        let Some(last) = self.ledgers.back() else {
            return Err(0);
        };
        if last.id == id {
            return Ok(count - 1);
        }
        if last.id < id {
            return Err(count);
        }
        let first = &self.ledgers[0];
        match first.id {
            first if first == id => Ok(0),
            first if first > id => Err(0),
            _ => {
                let hint = self.hint.load(Ordering::Relaxed);
                if self.ledgers.get(hint).is_some_and(|l| l.id == id) {
                    return Ok(hint);
                }
                let found = self.ledgers.binary_search_by_key(&id, |l| l.id);
                if let Ok(index) = found {
                    self.hint.store(index, Ordering::Relaxed);
                }
                found
            }
        }
    }

    fn store(&self, ledger: u64) -> Option<&Store> {
        let index = self.position(ledger).ok()?;
        Some(&self.ledgers[index].store)
    }

    /// Inserts into an existing ledger's store, changing its representation when needed.
    #[inline]
    fn insert_into(&mut self, index: usize, entry: u64, ack: PendingAck) -> bool {
        match &mut self.ledgers[index].store {
            Store::One { entry: e, ack: a } if *e == entry => {
                *a = ack;
                false
            }
            Store::Ring(ring) => match ring.insert(entry, ack) {
                Ok(new) => new,
                Err(TooSparse) => self.convert_and_insert(index, entry, ack),
            },
            Store::Sparse(sparse) => sparse.insert(entry, ack).is_none(),
            Store::One { .. } => self.convert_and_insert(index, entry, ack),
        }
    }

    /// A second entry for a one-entry ledger (it gets a ring, or a `BTreeMap` when the two ids
    /// are far apart), or an entry a ring refused as too sparse (it becomes a `BTreeMap`). Kept
    /// out of line so the hot path stays small.
    #[cold]
    #[inline(never)]
    fn convert_and_insert(&mut self, index: usize, entry: u64, ack: PendingAck) -> bool {
        let store = &mut self.ledgers[index].store;
        match store {
            Store::One { entry: e, ack: a } => {
                let first = (*e, *a);
                // A spare when there is one, so a rolling window does not allocate.
                let mut ring = self.spares.pop();
                let _ = ring.insert(first.0, first.1); // an empty ring takes any entry
                match ring.insert(entry, ack) {
                    Ok(_) => *store = Store::Ring(ring),
                    Err(TooSparse) => {
                        self.spares.push(ring, self.len);
                        let sparse = BTreeMap::from([first, (entry, ack)]);
                        *store = Store::Sparse(Box::new(sparse));
                    }
                }
            }
            Store::Ring(ring) => {
                let mut sparse = std::mem::take(ring.as_mut()).into_sparse();
                sparse.insert(entry, ack);
                *store = Store::Sparse(Box::new(sparse));
            }
            Store::Sparse(sparse) => {
                sparse.insert(entry, ack);
            }
        }
        true
    }

    /// Removes an emptied ledger, keeping its ring as a spare when `recycle`.
    #[cold]
    #[inline(never)]
    fn drop_ledger(&mut self, index: usize, recycle: bool) {
        let ledger = self.ledgers.remove(index).expect("index is in range");
        if let (true, Store::Ring(ring)) = (recycle, ledger.store) {
            self.spares.push(ring, self.len);
        }
    }
}

impl PendingAcks for DenseWindow {
    const NAME: &'static str = "dense-window";
    type Shared = crate::shared::RwLocked<Self>;

    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        let new = match self.position(ledger) {
            Ok(index) => self.insert_into(index, entry, ack),
            Err(index) => {
                let store = Store::One { entry, ack };
                self.ledgers.insert(index, Ledger { id: ledger, store });
                true
            }
        };
        self.len += usize::from(new);
        new
    }

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        self.store(ledger)?.get(entry)
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        let index = self.position(ledger).ok()?;
        self.ledgers[index].store.get_mut(entry)
    }

    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let index = self.position(ledger).ok()?;
        let store = &mut self.ledgers[index].store;
        let (removed, emptied) = match store {
            Store::One { entry: e, ack } => ((*e == entry).then_some(*ack)?, true),
            Store::Ring(ring) => {
                let removed = ring.remove(entry)?;
                (removed, ring.len == 0)
            }
            Store::Sparse(sparse) => {
                let removed = sparse.remove(&entry)?;
                (removed, sparse.is_empty())
            }
        };
        self.len -= 1;
        if emptied {
            self.drop_ledger(index, true);
        }
        self.spares.trim(self.len);
        Some(removed)
    }

    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        self.spares = Spares::default();
        while self.ledgers.front().is_some_and(|l| l.id < mark.ledger) {
            let ledger = self.ledgers.pop_front().expect("front exists");
            self.len -= ledger.store.len();
            ledger.store.visit(ledger.id, on_removed);
        }
        if let (Some(mark_entry), Some(first)) = (mark.entry, self.ledgers.front_mut())
            && first.id == mark.ledger
        {
            let before = first.store.len();
            let after = match &mut first.store {
                Store::One { entry, ack } if *entry <= mark_entry => {
                    on_removed(first.id, *entry, *ack);
                    0
                }
                Store::One { .. } => 1,
                Store::Ring(ring) => {
                    ring.take_up_to(first.id, mark_entry, on_removed);
                    ring.len
                }
                Store::Sparse(sparse) => {
                    let kept = match mark_entry.checked_add(1) {
                        Some(first_kept) => sparse.split_off(&first_kept),
                        None => BTreeMap::new(),
                    };
                    for (entry, ack) in std::mem::replace(sparse.as_mut(), kept) {
                        on_removed(first.id, entry, ack);
                    }
                    sparse.len()
                }
            };
            self.len -= before - after;
            if after == 0 {
                self.ledgers.pop_front();
            }
        }
        let capacity = self.ledgers.capacity();
        if capacity > 64 && capacity > 4 * self.ledgers.len() {
            self.ledgers
                .shrink_to(self.ledgers.len() + self.ledgers.len() / 4);
        }
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        for ledger in &self.ledgers {
            ledger.store.visit(ledger.id, visit);
        }
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.spares = Spares::default();
        self.len = 0;
        for ledger in std::mem::take(&mut self.ledgers) {
            ledger.store.visit(ledger.id, visit);
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}

//! `dense-window`: a layout built from how pending acks behave. Within a ledger, entries are
//! dispatched in increasing, nearly contiguous entry-id order, acked mostly near-FIFO and cleaned
//! up by prefix; ledgers arrive in increasing order and leave from the front. (The report's design
//! notes say the same for its readers, with the constants below read from this code.)
//!
//! - Outer level: the ledgers sorted by id, 32 bytes per ledger, in a sliding `Vec` (a start index
//!   moves past drained ledgers; the buffer is compacted when a push finds it full). New ledgers
//!   are pushed at the back, drained ones popped at the front. A dispatch or ack of the newest or
//!   oldest ledger's ring is handled in line without a search (dispatches go to the newest, acks
//!   mostly to the oldest); other lookups try both ends, then a hinted binary search.
//! - Per ledger, adaptive storage:
//!   - `One`: a single entry stored inline (no allocation; the 1-entry-per-ledger sparse case);
//!   - `Ring`: a window of packed values in a sliding `Vec`, indexed by `entry − base`, `ABSENT`
//!     for holes. Exact ops are an index computation (no wrap test, unlike a `VecDeque`); prefix
//!     cleanup moves the start and advances `base`;
//!   - `Sparse`: an ordered `BTreeMap`, taken when a ring would hold more than 4 slots per entry
//!     (huge gaps between entry ids); it stays sparse until the ledger empties.
//! - Memory policy: rings grow by 1.25× (not 2×) so dense ledgers cost about 8–10 bytes per entry;
//!   prefix cleanup (`remove_all_up_to`) shrinks a ring that holds less than a quarter of its
//!   capacity; rings emptied by single removes (a rolling window) are kept as spares and reused
//!   by the next ledgers, so a steady dispatch/ack cycle allocates nothing even when many small
//!   ledgers drain out of order. Spares hold at most 2 slots per live entry plus 1,024 slots
//!   (`SPARE_FLOOR_SLOTS`). A cleanup that removes something, and `drain`, drop the spares.
//! - Costs: single removes never convert a ring: it only shrinks in span, so a ring thinned by
//!   random single acks keeps its span (8 bytes per slot) until its front is acked or a cleanup
//!   runs; a ledger that turned sparse stays a `BTreeMap` until it empties; an entry far before a
//!   ring's base grows the ring at the front (bounded by the same density limit).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{Mark, PendingAck, PendingAcks};

mod ring;
mod sliding_vec;

use ring::{Ring, Spares, TooSparse};
pub(crate) use ring::{
    SHRINK_BELOW_ONE_IN, SLOTS_PER_ENTRY, SPARE_FLOOR_SLOTS, SPARE_SLOTS_PER_ENTRY,
};
pub(crate) use sliding_vec::GROWTH_ONE_IN;
use sliding_vec::SlidingVec;

/// What one ledger costs in the outer list, whatever it holds.
pub(crate) const LEDGER_BYTES: usize = std::mem::size_of::<Ledger>();

#[derive(Default)]
pub struct DenseWindow {
    /// Ascending by id, no empty ledgers.
    ledgers: SlidingVec<Ledger>,
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

/// What a ledger popped from the front of the list leaves behind until the list is compacted.
impl Default for Ledger {
    fn default() -> Self {
        let store = Store::One {
            entry: 0,
            ack: PendingAck::ABSENT,
        };
        Self { id: 0, store }
    }
}

/// 24 bytes, so a one-entry ledger costs 32 bytes in the outer list.
enum Store {
    One {
        entry: u64,
        ack: PendingAck,
    },
    Ring(Box<Ring>),
    #[allow(clippy::box_collection, reason = "boxed so `Store` stays 24 bytes")]
    Sparse(Box<BTreeMap<u64, PendingAck>>),
}

impl Store {
    fn len(&self) -> usize {
        match self {
            Store::One { .. } => 1,
            Store::Ring(ring) => ring.len,
            Store::Sparse(sparse) => sparse.len(),
        }
    }

    /// The lowest entry id held (a store is never empty).
    fn first_entry(&self) -> u64 {
        match self {
            Store::One { entry, .. } => *entry,
            Store::Ring(ring) => ring.base,
            Store::Sparse(sparse) => sparse.first_key_value().map_or(u64::MAX, |(&e, _)| e),
        }
    }

    /// The `BTreeMap` search stays out of line, so the ring's lookup can be inlined small.
    #[inline(always)]
    fn get(&self, entry: u64) -> Option<PendingAck> {
        #[inline(never)]
        fn sparse_get(sparse: &BTreeMap<u64, PendingAck>, entry: u64) -> Option<PendingAck> {
            sparse.get(&entry).copied()
        }
        match self {
            Store::One { entry: e, ack } => (*e == entry).then_some(*ack),
            Store::Ring(ring) => ring.get(entry),
            Store::Sparse(sparse) => sparse_get(sparse, entry),
        }
    }

    fn get_mut(&mut self, entry: u64) -> Option<&mut PendingAck> {
        match self {
            Store::One { entry: e, ack } => (*e == entry).then_some(ack),
            Store::Ring(ring) => ring.get_mut(entry),
            Store::Sparse(sparse) => sparse.get_mut(&entry),
        }
    }

    fn visit(&self, ledger: u64, runs: &mut impl Runs) {
        match self {
            Store::One { entry, ack } => runs.one(ledger, *entry, *ack),
            Store::Ring(ring) => ring.visit(ledger, runs),
            Store::Sparse(sparse) => {
                for (&entry, &ack) in sparse.iter() {
                    runs.one(ledger, entry, ack);
                }
            }
        }
    }
}

impl DenseWindow {
    /// Where ledger `id` is (`Ok`) or would go (`Err`).
    #[inline]
    fn position(&self, id: u64) -> Result<usize, usize> {
        // The newest ledger first (a dispatch goes there), then the oldest (an ack of the window's
        // front), then the hint.
        let count = self.ledgers.len();
        let Some(last) = self.ledgers.last() else {
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
                let found = self.ledgers.as_slice().binary_search_by_key(&id, |l| l.id);
                if let Ok(index) = found {
                    self.hint.store(index, Ordering::Relaxed);
                }
                found
            }
        }
    }

    /// The oldest ledger in line (a read checks an ack, and acks land near the front), any
    /// other through the search.
    #[inline(always)]
    fn store(&self, ledger: u64) -> Option<&Store> {
        match self.ledgers.first() {
            Some(oldest) if oldest.id == ledger => Some(&oldest.store),
            _ => self.store_by_search(ledger),
        }
    }

    #[inline(never)]
    fn store_by_search(&self, ledger: u64) -> Option<&Store> {
        let index = self.position(ledger).ok()?;
        self.ledgers.get(index).map(|l| &l.store)
    }

    /// The ring of ledger `id` when that is the newest or the oldest ledger: where a window's
    /// dispatches and acks land, found without a search. `NEWEST_FIRST` says which end is tried
    /// first (a dispatch goes to the newest, an ack mostly to the oldest).
    #[inline(always)]
    fn ring_at_an_end<const NEWEST_FIRST: bool>(&mut self, id: u64) -> Option<&mut Ring> {
        let is = |ledger: Option<&Ledger>| ledger.is_some_and(|l| l.id == id);
        let ledger = match NEWEST_FIRST {
            true if is(self.ledgers.last()) => self.ledgers.last_mut(),
            false if is(self.ledgers.first()) => self.ledgers.first_mut(),
            true if is(self.ledgers.first()) => self.ledgers.first_mut(),
            false if is(self.ledgers.last()) => self.ledgers.last_mut(),
            _ => None,
        }?;
        match &mut ledger.store {
            Store::Ring(ring) => Some(ring),
            _ => None,
        }
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

    /// Whether a cleanup up to `mark` finds nothing: the oldest entry comes after it.
    #[inline]
    fn nothing_up_to(&self, mark: Mark) -> bool {
        self.ledgers.first().is_none_or(|first| {
            first.id > mark.ledger
                || (first.id == mark.ledger
                    && mark
                        .entry
                        .is_none_or(|entry| first.store.first_entry() > entry))
        })
    }

    /// Removes every entry `mark` covers (at least one), handing them to `runs` in order, and
    /// drops the spare rings.
    fn remove_covered(&mut self, mark: Mark, runs: &mut impl Runs) {
        self.spares = Spares::default();
        while self.ledgers.first().is_some_and(|l| l.id < mark.ledger) {
            let ledger = self.ledgers.pop_front().expect("front exists");
            self.len -= ledger.store.len();
            ledger.store.visit(ledger.id, runs);
        }
        if let (Some(mark_entry), Some(first)) = (mark.entry, self.ledgers.first_mut())
            && first.id == mark.ledger
        {
            let before = first.store.len();
            let after = match &mut first.store {
                Store::One { entry, ack } if *entry <= mark_entry => {
                    runs.one(first.id, *entry, *ack);
                    0
                }
                Store::One { .. } => 1,
                Store::Ring(ring) => {
                    ring.take_up_to(first.id, mark_entry, runs);
                    ring.len
                }
                Store::Sparse(sparse) => {
                    let kept = match mark_entry.checked_add(1) {
                        Some(first_kept) => sparse.split_off(&first_kept),
                        None => BTreeMap::new(),
                    };
                    for (entry, ack) in std::mem::replace(sparse.as_mut(), kept) {
                        runs.one(first.id, entry, ack);
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

    /// `add_or_replace` for a ledger found by the search (or new), out of line so the in-line
    /// path stays small.
    #[inline(never)]
    fn add_or_replace_found(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
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

    /// `remove` for a ledger found by the search, or an end ledger's last entry; out of line so
    /// the in-line path stays small.
    #[inline(never)]
    fn remove_found(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
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

/// Where removed or visited entries go, a ring's slots a slice at a time: the map's own calls visit
/// them one by one (a callback is a `Runs`); `striped-window` copies each slice whole and merges
/// its stripes' slices afterwards.
pub(crate) trait Runs {
    /// Takes `slots`, entries `first ..` of `ledger` in order, `PendingAck::ABSENT` for a hole
    /// (only when `holes_possible`); returns how many are present.
    fn run(&mut self, ledger: u64, first: u64, slots: &[PendingAck], holes_possible: bool)
    -> usize;

    /// Takes one entry.
    fn one(&mut self, ledger: u64, entry: u64, ack: PendingAck);
}

/// A callback visits each present entry. Implemented on the callback itself, not on a wrapper
/// holding a reference to it: through the wrapper the compiler could not tell the callback's
/// captures from the slots, and a cleanup's running sum went to memory at every entry (7.0
/// instead of 4.0 instructions an entry).
impl<F: FnMut(u64, u64, PendingAck)> Runs for F {
    #[inline(always)]
    fn run(
        &mut self,
        ledger: u64,
        first: u64,
        slots: &[PendingAck],
        holes_possible: bool,
    ) -> usize {
        ring::visit_slots(ledger, first, slots, holes_possible, self)
    }

    #[inline(always)]
    fn one(&mut self, ledger: u64, entry: u64, ack: PendingAck) {
        self(ledger, entry, ack);
    }
}

/// The slice-at-a-time forms of cleanup, scan and drain, for `striped-window`.
impl DenseWindow {
    /// A cleanup that finds nothing to remove returns before the call that removes: the striped
    /// map runs one cleanup per stripe, and a mark before the window is a no-op in all 16.
    #[inline]
    pub(crate) fn remove_runs_up_to(&mut self, mark: Mark, runs: &mut impl Runs) {
        if !self.nothing_up_to(mark) {
            self.remove_covered(mark, runs);
        }
    }

    pub(crate) fn for_each_run(&self, runs: &mut impl Runs) {
        for ledger in self.ledgers.as_slice() {
            ledger.store.visit(ledger.id, runs);
        }
    }

    pub(crate) fn drain_runs(&mut self, runs: &mut impl Runs) {
        self.spares = Spares::default();
        self.len = 0;
        for ledger in std::mem::take(&mut self.ledgers).as_slice() {
            ledger.store.visit(ledger.id, runs);
        }
    }
}

impl PendingAcks for DenseWindow {
    const NAME: &'static str = "dense-window";
    type Shared = crate::shared::RwLocked<Self>;

    /// An entry of the newest or oldest ledger's ring (dispatches append to the newest) is
    /// stored in line when the ring need not grow; anything else goes through the ledger search.
    #[inline(always)]
    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        if let Some(ring) = self.ring_at_an_end::<true>(ledger)
            && let Some(new) = ring.insert_in_place(entry, ack)
        {
            self.len += usize::from(new);
            return new;
        }
        self.add_or_replace_found(ledger, entry, ack)
    }

    #[inline(always)]
    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        self.store(ledger)?.get(entry)
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        let index = self.position(ledger).ok()?;
        self.ledgers[index].store.get_mut(entry)
    }

    /// An entry of the newest or oldest ledger's ring (near-FIFO acks land in the oldest) is
    /// removed in line when the ring keeps others; anything else goes through the ledger search.
    #[inline(always)]
    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let Some(ring) = self.ring_at_an_end::<false>(ledger) else {
            return self.remove_found(ledger, entry);
        };
        let removed = match ring.remove_first_of_several(entry) {
            Some(removed) => removed,
            None if ring.len > 1 => ring.remove_other(entry)?,
            None => return self.remove_found(ledger, entry),
        };
        self.len -= 1;
        self.spares.trim(self.len);
        Some(removed)
    }

    #[inline]
    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        self.remove_runs_up_to(mark, on_removed);
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.for_each_run(visit);
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.drain_runs(visit);
    }

    fn len(&self) -> usize {
        self.len
    }
}

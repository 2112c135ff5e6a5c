//! `packed-handle`: `producer-handle`'s admission (one compare-and-swap through the connection's
//! handle, no lookup, no lock) with each producer's state packed into arrays instead of two
//! allocations and a table of fat pointers, for a broker that keeps 10^6 producers.
//!
//! - **Names are hashed, not stored.** A producer is known by a 128-bit key: two SipHash-1-3
//!   values of its name under the deduplicator's random key (std's `RandomState`), one of the name
//!   and one of the name behind a tag byte. Two names share a key with probability about
//!   n²/2^129 (10^-27 at 10^6 producers), and a producer cannot aim for another's key without
//!   the secret key. Sharing a key would merge two producers' watermarks, so this is the design's
//!   one departure from exactness, stated here rather than hidden.
//! - **Slots in segments that never move.** Watermarks, keys and connection counts sit in
//!   parallel arrays, in segments of 4, 8, … up to [`SEGMENT_MAX`] slots (a topic with one producer
//!   stays small, a large one wastes at most one segment). A connection holds its segment's
//!   watermarks by `Arc`, so the table can grow while it admits.
//! - **A table of 32-bit slot numbers** indexes the keys (`hashbrown`'s `HashTable`, 5 bytes per
//!   bucket where `producer-handle`'s holds a 24-byte key and pointer).
//! - **Connections are counted, not reference-counted.** Connect and disconnect count under the
//!   store's lock; a purge frees a slot for reuse only when no connection holds it, so a handle
//!   can never reach another producer's slot. A purge of a connected producer clears its
//!   watermarks and keeps the slot, as `producer-handle` does.
//!
//! Replicated positions have a store of their own, resolved on a connection's first replicated
//! message, as in `producer-handle`.

use std::alloc::{Layout, handle_alloc_error};
use std::hash::{BuildHasher, RandomState};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use hashbrown::HashTable;

use crate::sequence::{Position, Watermark, WatermarkSlot};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

/// A producer's 128-bit key (see the module documentation).
type Key = [u64; 2];

/// Low bits of a slot number: the slot's place in its segment.
const SEGMENT_BITS: u32 = 10;
/// The largest segment; every segment from the seventh on has this many slots.
pub const SEGMENT_MAX: usize = 1 << SEGMENT_BITS;
/// The first segment's slots; each next one doubles, up to [`SEGMENT_MAX`].
const FIRST_SEGMENT: usize = 4;
/// Slot numbers are 32-bit: this many segments at most.
const MAX_SEGMENTS: usize = 1 << (u32::BITS - SEGMENT_BITS);
/// A connection count that reached this stays there: the slot is never freed (still correct,
/// and 65,535 connections of one name are not a broker's case).
const PINNED: u16 = u16::MAX;

/// One segment's slots: the watermarks that connections share, and the keys and connection
/// counts that only the store's lock guards.
struct Segment<W: Watermark> {
    watermarks: Arc<[WatermarkSlot<W>]>,
    keys: Box<[Key]>,
    connections: Box<[u16]>,
}

impl<W: Watermark> Segment<W> {
    fn new(len: usize) -> Self {
        Self {
            watermarks: (0..len).map(|_| WatermarkSlot::default()).collect(),
            keys: vec![[0; 2]; len].into_boxed_slice(),
            connections: vec![0; len].into_boxed_slice(),
        }
    }
}

/// A slot number's segment and place in it.
fn split(slot: u32) -> (usize, usize) {
    (
        (slot >> SEGMENT_BITS) as usize,
        (slot & (SEGMENT_MAX as u32 - 1)) as usize,
    )
}

/// The store's state under its lock.
struct Table<W: Watermark> {
    /// Slot numbers of the producers known, hashed by their key's first word.
    index: HashTable<u32>,
    segments: Vec<Segment<W>>,
    /// Purged slots no connection holds, for the next new producer.
    free: Vec<u32>,
    /// Slots of the last segment handed out so far.
    used_in_last: usize,
}

impl<W: Watermark> Default for Table<W> {
    fn default() -> Self {
        Self {
            index: HashTable::new(),
            segments: Vec::new(),
            free: Vec::new(),
            used_in_last: 0,
        }
    }
}

impl<W: Watermark> Table<W> {
    fn find(&self, key: Key) -> Option<u32> {
        let segments = &self.segments;
        let key_of = |slot: u32| {
            let (s, i) = split(slot);
            segments[s].keys[i]
        };
        self.index
            .find(key[0], |&slot| key_of(slot) == key)
            .copied()
    }

    fn watermarks(&self, slot: u32) -> &WatermarkSlot<W> {
        let (s, i) = split(slot);
        &self.segments[s].watermarks[i]
    }

    /// A slot no producer has: a freed one, else the next of the last segment, else a new
    /// segment's first.
    fn vacant_slot(&mut self) -> u32 {
        if let Some(slot) = self.free.pop() {
            return slot;
        }
        let full = self
            .segments
            .last()
            .is_none_or(|last| self.used_in_last == last.keys.len());
        if full {
            if self.segments.len() == MAX_SEGMENTS {
                // 2^32 producers at once: past what any allocator gives (about 146 GB of slots),
                // so this is the allocation failure that would come first.
                handle_alloc_error(Layout::new::<Segment<W>>());
            }
            let len =
                (FIRST_SEGMENT << self.segments.len().min(SEGMENT_BITS as usize)).min(SEGMENT_MAX);
            self.segments.push(Segment::new(len));
            self.used_in_last = 0;
        }
        let segment = (self.segments.len() - 1) as u32;
        let slot = (segment << SEGMENT_BITS) | self.used_in_last as u32;
        self.used_in_last += 1;
        slot
    }

    /// The producer's slot, created if new, with one more connection counted.
    fn connect(&mut self, key: Key) -> (u32, Arc<[WatermarkSlot<W>]>) {
        let slot = match self.find(key) {
            Some(slot) => slot,
            None => {
                let slot = self.vacant_slot();
                let (s, i) = split(slot);
                self.segments[s].keys[i] = key;
                let segments = &self.segments;
                self.index.insert_unique(key[0], slot, |&other| {
                    let (s, i) = split(other);
                    segments[s].keys[i][0]
                });
                slot
            }
        };
        let (s, i) = split(slot);
        let segment = &mut self.segments[s];
        if segment.connections[i] != PINNED {
            segment.connections[i] += 1;
        }
        (slot, segment.watermarks.clone())
    }

    fn disconnect(&mut self, slot: u32) {
        let (s, i) = split(slot);
        let count = &mut self.segments[s].connections[i];
        if *count != PINNED {
            *count -= 1;
        }
    }

    /// Clears the producer's watermarks; frees its slot when no connection holds it (none can
    /// be made meanwhile: connecting takes this lock).
    fn purge(&mut self, key: Key) {
        let Some(slot) = self.find(key) else { return };
        self.watermarks(slot).clear();
        let (s, i) = split(slot);
        if self.segments[s].connections[i] == 0 {
            let segments = &self.segments;
            if let Ok(entry) = self.index.find_entry(key[0], |&other| {
                let (s, i) = split(other);
                segments[s].keys[i] == key
            }) {
                entry.remove();
            }
            self.free.push(slot);
        }
    }
}

/// Every producer's slot of one kind.
struct Store<W: Watermark>(Mutex<Table<W>>);

impl<W: Watermark> Default for Store<W> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<W: Watermark> Store<W> {
    fn lock(&self) -> MutexGuard<'_, Table<W>> {
        // Nothing under the lock can panic part-way through an update (indices are in range by
        // construction), so a poisoned lock still holds a consistent table.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn connect(self: &Arc<Self>, key: Key) -> Connection<W> {
        let (slot, watermarks) = self.lock().connect(key);
        Connection::new(self.clone(), slot, watermarks)
    }

    fn read(&self, key: Key, read: impl FnOnce(&WatermarkSlot<W>) -> Option<W>) -> Option<W> {
        let table = self.lock();
        table
            .find(key)
            .and_then(|slot| read(table.watermarks(slot)))
    }

    fn reset_pushed_to_persisted(&self) {
        for segment in &self.lock().segments {
            segment
                .watermarks
                .iter()
                .for_each(WatermarkSlot::reset_pushed_to_persisted);
        }
    }
}

/// A connection's hold on one slot: admission goes straight to the slot through a pointer (the
/// one load `producer-handle`'s `Arc` costs); dropping it counts the connection out.
struct Connection<W: Watermark> {
    /// The slot, in `_segment`.
    watermark: NonNull<WatermarkSlot<W>>,
    store: Arc<Store<W>>,
    slot: u32,
    /// Held, never read: it keeps the slots `watermark` points into alive.
    _segment: Arc<[WatermarkSlot<W>]>,
}

// SAFETY: without its pointer, a connection is `Send` and `Sync` whenever the slots are (its other
// fields are `Arc`s of `Sync` values and a number). The pointer only ever gives out `&` to a slot
// that `_segment` owns; sending or sharing the connection shares that slot exactly as sharing
// the `Arc` would, and a `WatermarkSlot` is atomics (`Sync`).
unsafe impl<W: Watermark> Send for Connection<W> where WatermarkSlot<W>: Send + Sync {}
// SAFETY: as for `Send` above.
unsafe impl<W: Watermark> Sync for Connection<W> where WatermarkSlot<W>: Send + Sync {}

impl<W: Watermark> Connection<W> {
    fn new(store: Arc<Store<W>>, slot: u32, watermarks: Arc<[WatermarkSlot<W>]>) -> Self {
        // The table hands out slots of the segment it returns: a failure here is a bug in this
        // file, caught on the connect path rather than on every admission.
        let watermark = NonNull::from(
            watermarks
                .get(split(slot).1)
                .unwrap_or_else(|| panic!("slot {slot} outside its segment")),
        );
        Self {
            watermark,
            store,
            slot,
            _segment: watermarks,
        }
    }

    /// The hot path: one pointer, as `producer-handle`'s admission goes through its `Arc`.
    #[inline]
    fn watermarks(&self) -> &WatermarkSlot<W> {
        // SAFETY: `watermark` points at an element of the slice `self._segment` owns. That
        // allocation lives as long as this connection holds the `Arc`, and an `Arc<[_]>`'s
        // elements never move or get resized; only `&` to them is ever made (their state is
        // atomics). Exercised by every admission test and by
        // `a_held_handle_admits_to_its_slot_while_the_table_grows`.
        unsafe { self.watermark.as_ref() }
    }
}

impl<W: Watermark> Drop for Connection<W> {
    fn drop(&mut self) {
        self.store.lock().disconnect(self.slot);
    }
}

pub struct PackedHandle {
    names: RandomState,
    ids: Arc<Store<u64>>,
    positions: Arc<Store<Position>>,
}

impl Default for PackedHandle {
    fn default() -> Self {
        Self {
            names: RandomState::new(),
            ids: Arc::default(),
            positions: Arc::default(),
        }
    }
}

/// A connection's handle: its producer's key and slots.
pub struct Handle {
    key: Key,
    ids: Connection<u64>,
    positions: OnceLock<Connection<Position>>,
}

impl PackedHandle {
    fn key(&self, producer: &str) -> Key {
        /// Separates the second hash's input from the first's.
        const SECOND: u8 = 1;
        [
            self.names.hash_one(producer),
            self.names.hash_one((SECOND, producer)),
        ]
    }

    fn positions<'h>(&self, handle: &'h Handle) -> &'h WatermarkSlot<Position> {
        handle
            .positions
            .get_or_init(|| self.positions.connect(handle.key))
            .watermarks()
    }
}

impl SequenceDedup for PackedHandle {
    const NAME: &'static str = "packed-handle";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = Handle;

    fn connect(&self, producer: &str) -> Handle {
        let key = self.key(producer);
        Handle {
            key,
            ids: self.ids.connect(key),
            positions: OnceLock::new(),
        }
    }

    fn admit(&self, producer: &Handle, batch: SequenceBatch) -> DupStatus {
        producer.ids.watermarks().admit(batch)
    }

    fn record_persisted(&self, producer: &Handle, batch: SequenceBatch) {
        producer.ids.watermarks().record_persisted(batch);
    }

    fn admit_replicated(&self, producer: &Handle, position: Position) -> DupStatus {
        self.positions(producer).admit_span(position, position)
    }

    fn record_replicated_persisted(&self, producer: &Handle, position: Position) {
        self.positions(producer).record_persisted_at(position);
    }

    fn reset_pushed_to_persisted(&self) {
        self.ids.reset_pushed_to_persisted();
        self.positions.reset_pushed_to_persisted();
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.ids.read(self.key(producer), WatermarkSlot::pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.ids.read(self.key(producer), WatermarkSlot::persisted)
    }

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position> {
        self.positions
            .read(self.key(producer), WatermarkSlot::pushed)
    }

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position> {
        self.positions
            .read(self.key(producer), WatermarkSlot::persisted)
    }

    fn purge(&self, producer: &str) {
        let key = self.key(producer);
        self.ids.lock().purge(key);
        self.positions.lock().purge(key);
    }

    fn increment_pushed(&self, producer: &Handle) -> u64 {
        producer.ids.watermarks().increment()
    }
}

#[cfg(test)]
mod tests;

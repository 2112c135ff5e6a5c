//! The pending-ack map as the broker's threads share it: the dispatcher adds
//! (`Consumer.sendMessages`), IO threads remove on individual acks (`messageAcked`), other
//! consumers' IO threads probe it to find an ack's owner, and cumulative cleanup
//! (`removeAllUpTo`) runs beside all of them.
//!
//! Every design has a shared form ([`PendingAcks::Shared`]): Pulsar's — the map behind one
//! reader/writer lock, [`RwLocked`] — unless the design brings its own. Every design can also run
//! behind one mutex ([`Mutexed`]), the map-wide lock at its simplest.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, PoisonError, RwLock};

use crate::{Mark, PendingAck, PendingAcks};

/// Entries a batch removal takes under one lock acquisition before it runs their callbacks.
pub const BATCH_CHUNK: usize = 16;

/// A pending-ack map shared between threads.
///
/// # Concurrency contract
///
/// `add`, `remove`, `remove_batch`, `contains`, `remove_all_up_to` and `len` may run on any
/// threads at once, in any mix; `drain` takes `&mut self`, so it runs alone.
///
/// - Per key, operations are linearizable: a key's adds and removes take effect in one order
///   consistent with real time, every removal returns the value of the add it undoes, and a
///   `contains` between an add's return and the start of the removal that undoes it answers
///   `true`.
/// - Every entry is removed at most once, by exactly one of `remove`, `remove_batch`,
///   `remove_all_up_to` or `drain`, and only that call reports it (return value or callback).
/// - `remove_all_up_to(mark)` removes every entry at or before `mark` that was present when it
///   started and that no concurrent removal took; an entry added while it runs may be removed
///   by it or left (it need not be atomic across the whole map). Callbacks run in ascending
///   (ledger, entry) order and with no lock of the map held, so a callback may call back into
///   the map (the deadlock Pulsar #23854 fixed).
/// - `len` is exact when no operation runs; during operations it is some count between.
pub trait SharedPendingAcks: Default + Send + Sync + 'static {
    /// Stores `ack` at (ledger, entry), replacing any value there; whether the key was new.
    fn add(&self, ledger: u64, entry: u64, ack: PendingAck) -> bool;

    /// Removes the entry (an individual ack) and returns its value.
    fn remove(&self, ledger: u64, entry: u64) -> Option<PendingAck>;

    /// Removes each of `keys` (a batch ack), calling `on_removed` for those present. Callbacks run
    /// with no lock held.
    fn remove_batch(&self, keys: &[(u64, u64)], on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        for &(ledger, entry) in keys {
            if let Some(ack) = self.remove(ledger, entry) {
                on_removed(ledger, entry, ack);
            }
        }
    }

    /// Whether the entry is pending (an owner probe).
    fn contains(&self, ledger: u64, entry: u64) -> bool;

    /// Removes every entry at or before `mark` (cumulative cleanup); see the contract.
    fn remove_all_up_to(&self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck));

    /// Number of entries.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Visits every entry in ascending order and leaves the map empty.
    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck));
}

/// A single-threaded map behind one map-wide lock: `std::sync::RwLock` or `std::sync::Mutex`.
pub trait MapLock: Default + Send + Sync + 'static {
    type Map: PendingAcks;
    /// Access for probes (`contains`, `len`): shared under a reader/writer lock.
    fn read(&self) -> impl Deref<Target = Self::Map>;
    /// Access for changes.
    fn write(&self) -> impl DerefMut<Target = Self::Map>;
    fn get_mut(&mut self) -> &mut Self::Map;
}

// A poisoned lock only means another thread panicked while holding it; no map operation panics
// half-way, so the map is still whole.
impl<M: PendingAcks> MapLock for RwLock<M> {
    type Map = M;
    fn read(&self) -> impl Deref<Target = M> {
        RwLock::read(self).unwrap_or_else(PoisonError::into_inner)
    }
    fn write(&self) -> impl DerefMut<Target = M> {
        RwLock::write(self).unwrap_or_else(PoisonError::into_inner)
    }
    fn get_mut(&mut self) -> &mut M {
        RwLock::get_mut(self).unwrap_or_else(PoisonError::into_inner)
    }
}

impl<M: PendingAcks> MapLock for Mutex<M> {
    type Map = M;
    fn read(&self) -> impl Deref<Target = M> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
    fn write(&self) -> impl DerefMut<Target = M> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
    fn get_mut(&mut self) -> &mut M {
        Mutex::get_mut(self).unwrap_or_else(PoisonError::into_inner)
    }
}

/// An entry a cleanup removed or a scan visited, as buffered until the callbacks run.
pub(crate) type Entry = (u64, u64, PendingAck);

/// The buffer in which a shared map gathers what a cleanup removes (callbacks run after the map's
/// locks are released), kept for the next cleanup while it is small next to the map, so that a
/// steady cleanup of a few entries allocates no buffer. It is
/// taken out for each use, so a callback that calls back into the map finds no lock held.
pub(crate) struct Spare<B = Vec<Entry>>(Mutex<B>);

/// What a [`Spare`] keeps: a buffer that empties in place and tells how many items it has room
/// for.
pub(crate) trait Buffer: Default {
    fn clear(&mut self);
    fn capacity(&self) -> usize;
}

impl<T> Buffer for Vec<T> {
    fn clear(&mut self) {
        Vec::clear(self);
    }
    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }
}

impl<B: Buffer> Default for Spare<B> {
    fn default() -> Self {
        Self(Mutex::new(B::default()))
    }
}

/// A spare buffer is kept for up to this many items (24 KiB of entries) plus one per four live
/// entries, so a map that a cleanup shrank does not hold the cleanup's buffer.
const SPARE_FLOOR_ENTRIES: usize = 1_024;

impl<B: Buffer> Spare<B> {
    /// The kept buffer, empty (a new one if another call holds it).
    pub(crate) fn take(&self) -> B {
        let mut buffer = std::mem::take(&mut *self.lock());
        buffer.clear();
        buffer
    }

    /// Keeps `buffer` for the next call if it is small next to the `live` entries the map still
    /// holds, and larger than one a nested call gave back meanwhile.
    pub(crate) fn give_back(&self, mut buffer: B, live: usize) {
        buffer.clear();
        if buffer.capacity() > SPARE_FLOOR_ENTRIES + live / 4 {
            return;
        }
        let mut kept = self.lock();
        if buffer.capacity() > kept.capacity() {
            *kept = buffer;
        }
    }

    /// Drops the kept buffer.
    pub(crate) fn clear(&mut self) {
        *self.0.get_mut().unwrap_or_else(PoisonError::into_inner) = B::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, B> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A single-threaded map behind one map-wide lock `L`.
#[derive(Default)]
pub struct Locked<L> {
    map: L,
    /// Where cleanups gather the removed entries.
    spare: Spare,
}

/// The map behind one `std::sync::RwLock`, as Pulsar guards its `PendingAcksMap`: writes take
/// the write lock, probes the read lock. std's lock rather than `parking_lot`'s: since Rust 1.62
/// it is a futex lock of the same design (a word of state, writers preferred over new readers so
/// they cannot starve), with no dependency and no choice between fairness modes to explain.
pub type RwLocked<M> = Locked<RwLock<M>>;

/// The map behind one `std::sync::Mutex` (a futex word too): probes wait for writers and each
/// other, but every acquisition is one atomic exchange, with no reader count to keep.
pub type Mutexed<M> = Locked<Mutex<M>>;

impl<L: MapLock> SharedPendingAcks for Locked<L> {
    fn add(&self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        self.map.write().add_or_replace(ledger, entry, ack)
    }

    fn remove(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        self.map.write().remove(ledger, entry)
    }

    /// One write lock per [`BATCH_CHUNK`] keys, callbacks after it is released.
    fn remove_batch(&self, keys: &[(u64, u64)], on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        for chunk in keys.chunks(BATCH_CHUNK) {
            let mut removed = [None; BATCH_CHUNK];
            {
                let mut map = self.map.write();
                for (slot, &(ledger, entry)) in removed.iter_mut().zip(chunk) {
                    *slot = map.remove(ledger, entry).map(|ack| (ledger, entry, ack));
                }
            }
            for (ledger, entry, ack) in removed.into_iter().flatten() {
                on_removed(ledger, entry, ack);
            }
        }
    }

    fn contains(&self, ledger: u64, entry: u64) -> bool {
        self.map.read().contains(ledger, entry)
    }

    fn remove_all_up_to(&self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        let mut removed = self.spare.take();
        let live = {
            let mut map = self.map.write();
            map.remove_all_up_to(mark, &mut |l, e, ack| removed.push((l, e, ack)));
            map.len()
        };
        for &(ledger, entry, ack) in &removed {
            on_removed(ledger, entry, ack);
        }
        self.spare.give_back(removed, live);
    }

    fn len(&self) -> usize {
        self.map.read().len()
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.spare.clear();
        self.map.get_mut().drain(visit);
    }
}

//! A model of Java's `ConcurrentHashMap<String, Long>` as Pulsar's `MessageDeduplication` uses it
//! (`get`, `put`, `putIfAbsent`, `replace(key, expected, new)`, `remove`, `clear`), the map under
//! both arms of the seed's JMH benchmark; `chm-monitor` and `chm-replace` are those two arms on it.
//!
//! What it models, as Java 8+ has it:
//! - `get` takes no lock and writes no shared memory: it finds the key's node and reads its value
//!   through one pointer (Java's `volatile V val`).
//! - An update of a present key locks the key's bin (Java: `synchronized` on the bin's first node)
//!   and overwrites the node's value; `replace(key, expected, new)` compares by value under that
//!   lock (Java's `equals`, so two boxes of one number match). A new key is inserted with a
//!   compare-and-swap on the table, no lock (Java: `casTabAt` into an empty bin).
//! - A value is a box allocated per update ([`Boxed`]), as `Long.valueOf` allocates for every id
//!   above 127 (a `Box<u64>` here, 8 bytes where a JVM's `Long` takes 24). The box an update
//!   replaces is freed once no reader can hold it (Java: the garbage collector; here the epoch
//!   collector of the table, so one guard protects a lookup and the value it reads).
//!   [`Unboxed`] holds the value in place instead (a `volatile long`), for `chm-replace-unboxed`:
//!   the same map and algorithm without the box, which isolates what the box costs.
//!
//! What it does not model:
//! - Java's table: this is papaya's, which pins an epoch guard per access (a JVM read pays nothing
//!   like it) and resizes incrementally where Java transfers bins behind forwarding nodes. A bin
//!   here holds one key, where Java chains colliding keys under one lock (the benchmark's 64
//!   producers over 128 bins rarely collide).
//! - `addCount`'s size counter (a `LongAdder` touched when a key is added or removed, never by
//!   `replace` or by `put` of a present key), treeified bins, and the JVM's own costs: a thin
//!   lock's compare-and-swap, bump-pointer allocation in a thread-local buffer, the collector.

use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use papaya::{Guard, HashMap, OccupiedError};

use super::{Hasher, ProducerName, WatermarkStore};
use crate::DupStatus;
use crate::sequence::{AtomicWord, Watermark};

/// How a node holds its value: read without a lock, stored with the node's bin locked.
pub trait ValueCell<W>: Send + Sync + 'static {
    fn new(value: W) -> Self;
    /// The value; `guard` is an active guard of the table's collector.
    fn read(&self, guard: &impl Guard) -> W;
    /// Installs `value`; call with the bin locked, so stores of one key never race.
    fn store(&self, value: W, guard: &impl Guard);
}

/// A pointer to a box of the value, never null: a new box per store, the old one retired through
/// the table's collector.
pub struct Boxed<W>(AtomicPtr<W>);

impl<W: Watermark> ValueCell<W> for Boxed<W> {
    fn new(value: W) -> Self {
        Self(AtomicPtr::new(Box::into_raw(Box::new(value))))
    }

    fn read(&self, guard: &impl Guard) -> W {
        let ptr = guard.protect(&self.0, Ordering::Acquire);
        // SAFETY: the pointer is never null (a cell is built with a box and every store swaps in
        // another) and came from `Box::into_raw`. A box is freed only by `Boxed::drop` or, once
        // swapped out, by the table's collector after every guard that was active when it was
        // retired has ended; `guard` is one of that collector's guards, active since before this
        // load, and the node holding this cell was looked up under it, so neither can have
        // happened yet.
        unsafe { *ptr }
    }

    fn store(&self, value: W, guard: &impl Guard) {
        let new = Box::into_raw(Box::new(value));
        let old = guard.swap(&self.0, new, Ordering::AcqRel);
        // SAFETY: `old` came from `Box::into_raw` and, swapped out, is no longer reachable from
        // the cell: a thread that enters later cannot load it, one that loaded it earlier holds a
        // guard of this collector, which reclamation waits for. It is retired once, by the one
        // store that swapped it out (stores of a key hold its bin's lock).
        unsafe { guard.defer_retire(old, free_box::<W>) }
    }
}

impl<W> Drop for Boxed<W> {
    fn drop(&mut self) {
        // SAFETY: a cell is dropped with its node, when the table reclaims it (no guard that
        // could have looked it up, and so read its current box, is still active) or when it was
        // never shared (a rejected insert, the table's own drop); the current box is owned by the
        // cell alone and freed only here.
        unsafe { drop(Box::from_raw(*self.0.get_mut())) }
    }
}

/// The reclaimer of swapped-out boxes.
///
/// # Safety
/// `ptr` came from `Box::into_raw` and nothing else frees it.
unsafe fn free_box<W>(ptr: *mut W, _: &seize::Collector) {
    // SAFETY: as the function's contract states.
    unsafe { drop(Box::from_raw(ptr)) }
}

/// The value in place, as one atomic word.
pub struct Unboxed<W: Watermark>(W::Atomic);

impl<W: Watermark> ValueCell<W> for Unboxed<W> {
    fn new(value: W) -> Self {
        Self(W::Atomic::new(value.encode()))
    }

    fn read(&self, _: &impl Guard) -> W {
        W::decode(self.0.load(Ordering::Acquire))
            .expect("a cell always holds a value: only encoded values are stored, never NONE")
    }

    fn store(&self, value: W, _: &impl Guard) {
        self.0.store(value.encode(), Ordering::Release);
    }
}

/// One key's node: the lock of its bin and its value.
struct Node<V> {
    bin: Mutex<()>,
    value: V,
}

impl<V> Node<V> {
    fn new<W>(value: W) -> Self
    where
        V: ValueCell<W>,
    {
        Self {
            bin: Mutex::new(()),
            value: V::new(value),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        // The lock guards no data of its own: a poisoned one is as good as a clean one.
        self.bin.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The map: producer name → watermark, boxed unless `V` says otherwise.
pub struct Chm<W, V = Boxed<W>> {
    table: HashMap<ProducerName, Node<V>, Hasher>,
    watermark: std::marker::PhantomData<W>,
}

impl<W, V> Default for Chm<W, V> {
    fn default() -> Self {
        Self {
            table: HashMap::default(),
            watermark: std::marker::PhantomData,
        }
    }
}

impl<W: Watermark, V: ValueCell<W>> Chm<W, V> {
    /// `get`: the value, without a lock.
    pub fn get(&self, key: &str) -> Option<W> {
        let guard = self.table.guard();
        self.table
            .get(key, &guard)
            .map(|node| node.value.read(&guard))
    }

    /// `put`: the value of `key` becomes `value`. A present key's node is found first and its
    /// value replaced under the bin's lock; only an absent key gets a node.
    pub fn put(&self, key: &ProducerName, value: W) {
        let guard = self.table.guard();
        if let Some(node) = self.table.get(key, &guard) {
            let _bin = node.lock();
            node.value.store(value, &guard);
            return;
        }
        if let Err(OccupiedError { current, .. }) =
            self.table.try_insert(key.clone(), Node::new(value), &guard)
        {
            let _bin = current.lock();
            current.value.store(value, &guard);
        }
    }

    /// `putIfAbsent`: inserts `value` when `key` is absent and returns `None`; otherwise changes
    /// nothing and returns the present value.
    pub fn put_if_absent(&self, key: &ProducerName, value: W) -> Option<W> {
        let guard = self.table.guard();
        match self.table.try_insert(key.clone(), Node::new(value), &guard) {
            Ok(_) => None,
            Err(OccupiedError { current, .. }) => Some(current.value.read(&guard)),
        }
    }

    /// `replace(key, expected, new)`: under the bin's lock, the value becomes `value` if it still
    /// equals `expected`. False when it does not, or when `key` is absent.
    pub fn replace(&self, key: &ProducerName, expected: W, value: W) -> bool {
        let guard = self.table.guard();
        let Some(node) = self.table.get(key, &guard) else {
            return false;
        };
        let _bin = node.lock();
        if node.value.read(&guard) != expected {
            return false;
        }
        node.value.store(value, &guard);
        true
    }

    /// `remove`.
    pub fn remove(&self, key: &str) {
        self.table.remove(key, &self.table.guard());
    }

    /// `clear`, then a `put` of every entry of `other` (Java: `other.forEach(this::put)`, which
    /// shares the boxes; here each gets its own).
    pub fn replace_all_with(&self, other: &Chm<W, V>) {
        self.table.clear(&self.table.guard());
        let guard = other.table.guard();
        for (key, node) in other.table.iter(&guard) {
            self.put(key, node.value.read(&guard));
        }
    }
}

/// How a store admits: the decision behind a topic-wide monitor (`chm-monitor`), or per producer
/// with `putIfAbsent` / `replace` (`chm-replace`).
pub trait Admission: Default + Send + Sync + 'static {
    fn admit<W: Watermark, V: ValueCell<W>>(&self, at: Publish<'_, W, V>) -> DupStatus;
}

/// One kind of watermark in Pulsar's two maps, pushed and persisted, admitted as `A` does; the
/// persisted id is `put` outside any monitor, as Pulsar does.
pub struct ChmStore<W, A, V = Boxed<W>> {
    admission: A,
    pushed: Chm<W, V>,
    persisted: Chm<W, V>,
}

/// One publish to admit: the store's two maps, the producer and its batch's lowest and highest
/// ids.
pub struct Publish<'a, W, V> {
    pub pushed: &'a Chm<W, V>,
    pub persisted: &'a Chm<W, V>,
    pub producer: &'a ProducerName,
    pub low: W,
    pub high: W,
}

impl<W, A: Default, V> Default for ChmStore<W, A, V> {
    fn default() -> Self {
        Self {
            admission: A::default(),
            pushed: Chm::default(),
            persisted: Chm::default(),
        }
    }
}

impl<W: Watermark, A: Admission, V: ValueCell<W>> WatermarkStore<W> for ChmStore<W, A, V> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        self.admission.admit(Publish {
            pushed: &self.pushed,
            persisted: &self.persisted,
            producer,
            low,
            high,
        })
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.persisted.put(producer, high);
    }

    /// Not atomic with respect to admission (the trait's contract: only while fenced).
    fn reset_pushed_to_persisted(&self) {
        self.pushed.replace_all_with(&self.persisted);
    }

    fn pushed(&self, producer: &str) -> Option<W> {
        self.pushed.get(producer)
    }

    fn persisted(&self, producer: &str) -> Option<W> {
        self.persisted.get(producer)
    }

    fn purge(&self, producer: &str) {
        self.pushed.remove(producer);
        self.persisted.remove(producer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn updates_replace_values_and_compare_by_value<V: ValueCell<u64>>() {
        let map = Chm::<u64, V>::default();
        let key: ProducerName = "p".into();
        assert_eq!(map.get("p"), None);
        assert!(!map.replace(&key, 0, 1), "absent keys are not replaced");
        assert_eq!(map.put_if_absent(&key, 5), None);
        assert_eq!(map.put_if_absent(&key, 6), Some(5));
        assert!(
            map.replace(&key, 5, 7),
            "another box of the same number matches"
        );
        assert!(!map.replace(&key, 5, 8));
        assert_eq!(map.get("p"), Some(7));
        map.put(&key, 9);
        let copy = Chm::<u64, V>::default();
        copy.put(&"q".into(), 1);
        copy.replace_all_with(&map);
        assert_eq!((copy.get("p"), copy.get("q")), (Some(9), None));
        map.remove("p");
        assert_eq!(map.get("p"), None);
    }

    #[test]
    fn boxed_and_unboxed_maps_answer_alike() {
        updates_replace_values_and_compare_by_value::<Boxed<u64>>();
        updates_replace_values_and_compare_by_value::<Unboxed<u64>>();
    }

    /// Readers and writers of one key on several threads, through every unsafe path of the boxed
    /// cell (protected reads, stores that retire the old box, cells dropped with the map): every
    /// read sees a value some writer stored. `tests/race.rs` runs the designs on it with 32
    /// threads.
    #[test]
    fn concurrent_updates_read_only_stored_values() {
        let map = Chm::<u64>::default();
        let key: ProducerName = "p".into();
        map.put(&key, 0);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (map, key) = (&map, &key);
                s.spawn(move || {
                    for i in 0..20_000u64 {
                        let seen = map.get("p").unwrap();
                        assert!(seen < 4 * 20_000 + 4, "{seen}");
                        let _ = map.replace(key, seen, i * 4 + t);
                    }
                });
            }
        });
        assert!(map.get("p").is_some());
    }
}

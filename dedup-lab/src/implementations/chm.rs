//! A model of Java's `ConcurrentHashMap<String, Long>` as Pulsar's `MessageDeduplication` uses it
//! (`get`, `put`, `putIfAbsent`, `replace(key, expected, new)`, `remove`, `clear`), the map under
//! both arms of the seed's JMH benchmark; `chm-monitor` and `chm-replace` are those two arms on it.
//!
//! What it models, as Java 8+ has it:
//! - `get` takes no lock and writes no shared memory: it finds the key's node and reads its value
//!   through one pointer (Java's `volatile V val`).
//! - An update of a present key locks the key's bin (Java: `synchronized` on the bin's first node)
//!   and overwrites the node's value pointer; `replace(key, expected, new)` compares by value
//!   under that lock (Java's `equals`, so two boxes of one number match). A new key is inserted
//!   with a compare-and-swap on the table, no lock (Java: `casTabAt` into an empty bin).
//! - A value is a box allocated per update, as `Long.valueOf` allocates for every id above 127
//!   (a `Box<u64>` here, 8 bytes where a JVM's `Long` takes 24). The box an update replaces is
//!   freed once no reader can hold it (Java: the garbage collector; here the epoch collector of
//!   the table, so one guard protects a lookup and the value it reads).
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

use super::{Hasher, ProducerName};
use crate::sequence::Watermark;

/// One key's node: the lock of its bin and the pointer to its boxed value, never null.
struct Node<W> {
    bin: Mutex<()>,
    value: AtomicPtr<W>,
}

impl<W> Node<W> {
    fn new(value: Box<W>) -> Self {
        Self {
            bin: Mutex::new(()),
            value: AtomicPtr::new(Box::into_raw(value)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        // The lock guards no data of its own: a poisoned one is as good as a clean one.
        self.bin.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value, read through a pointer `guard` protects.
    fn read(&self, guard: &impl Guard) -> W
    where
        W: Copy,
    {
        let ptr = guard.protect(&self.value, Ordering::Acquire);
        // SAFETY: the pointer is never null (a node is built with a box and every store swaps in
        // another) and came from `Box::into_raw`. A box is freed only by `Node::drop` or, once
        // swapped out, by the table's collector after every guard that was active when it was
        // retired has ended; `guard` is one of that collector's guards, active since before this
        // load, and the node itself was looked up under it, so neither can have happened yet.
        unsafe { *ptr }
    }

    /// Installs `value`; call with the bin locked, so stores of one key never race.
    fn store(&self, value: Box<W>, guard: &impl Guard) {
        let old = guard.swap(&self.value, Box::into_raw(value), Ordering::AcqRel);
        // SAFETY: `old` came from `Box::into_raw` and, swapped out, is no longer reachable from
        // the node: a thread that enters later cannot load it, one that loaded it earlier holds a
        // guard of this collector, which reclamation waits for. It is retired once, by the one
        // store that swapped it out (stores of a key hold its bin's lock).
        unsafe { guard.defer_retire(old, free_box::<W>) }
    }
}

impl<W> Drop for Node<W> {
    fn drop(&mut self) {
        // SAFETY: a node is dropped when the table reclaims it (no guard that could have looked
        // it up, and so read its current value, is still active) or when it was never shared (a
        // rejected insert, the table's own drop); the current box is owned by the node alone and
        // freed only here.
        unsafe { drop(Box::from_raw(*self.value.get_mut())) }
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

/// The map: producer name → boxed watermark.
pub struct Chm<W> {
    table: HashMap<ProducerName, Node<W>, Hasher>,
}

impl<W> Default for Chm<W> {
    fn default() -> Self {
        Self {
            table: HashMap::default(),
        }
    }
}

impl<W: Watermark> Chm<W> {
    /// `get`: the value, without a lock.
    pub fn get(&self, key: &str) -> Option<W> {
        let guard = self.table.guard();
        self.table.get(key, &guard).map(|node| node.read(&guard))
    }

    /// `put`: the value of `key` becomes `value`, a box the caller allocated. A present key's
    /// node is found first and its value replaced under the bin's lock; only an absent key gets
    /// a node.
    pub fn put(&self, key: &ProducerName, value: Box<W>) {
        let guard = self.table.guard();
        if let Some(node) = self.table.get(key, &guard) {
            let _bin = node.lock();
            node.store(value, &guard);
            return;
        }
        if let Err(OccupiedError {
            current,
            not_inserted,
        }) = self.table.try_insert(key.clone(), Node::new(value), &guard)
        {
            let _bin = current.lock();
            current.store(not_inserted.into_box(), &guard);
        }
    }

    /// `putIfAbsent`: inserts `value` when `key` is absent; otherwise changes nothing and hands
    /// back the present value and the unused box.
    pub fn put_if_absent(&self, key: &ProducerName, value: Box<W>) -> Result<(), (W, Box<W>)> {
        let guard = self.table.guard();
        match self.table.try_insert(key.clone(), Node::new(value), &guard) {
            Ok(_) => Ok(()),
            Err(OccupiedError {
                current,
                not_inserted,
            }) => Err((current.read(&guard), not_inserted.into_box())),
        }
    }

    /// `replace(key, expected, new)`: under the bin's lock, the value becomes `value` if it still
    /// equals `expected`; otherwise (or when `key` is absent) nothing changes and the box comes
    /// back.
    pub fn replace(&self, key: &ProducerName, expected: W, value: Box<W>) -> Result<(), Box<W>> {
        let guard = self.table.guard();
        let Some(node) = self.table.get(key, &guard) else {
            return Err(value);
        };
        let _bin = node.lock();
        if node.read(&guard) != expected {
            return Err(value);
        }
        node.store(value, &guard);
        Ok(())
    }

    /// `remove`.
    pub fn remove(&self, key: &str) {
        self.table.remove(key, &self.table.guard());
    }

    /// `clear`, then a `put` of every entry of `other` (Java: `other.forEach(this::put)`, which
    /// shares the boxes; here each gets its own).
    pub fn replace_all_with(&self, other: &Chm<W>) {
        self.table.clear(&self.table.guard());
        let guard = other.table.guard();
        for (key, node) in other.table.iter(&guard) {
            self.put(key, Box::new(node.read(&guard)));
        }
    }
}

impl<W> Node<W> {
    /// The box of a node that was never shared.
    fn into_box(self) -> Box<W> {
        let mut node = std::mem::ManuallyDrop::new(self);
        let ptr = *node.value.get_mut();
        // SAFETY: the node was never shared (a rejected insert) and is not dropped, so its box
        // has this one owner; the node's mutex holds no resources to release.
        unsafe { Box::from_raw(ptr) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_replace_boxes_and_compare_by_value() {
        let map = Chm::<u64>::default();
        let key: ProducerName = "p".into();
        assert_eq!(map.get("p"), None);
        assert!(
            map.replace(&key, 0, Box::new(1)).is_err(),
            "absent keys are not replaced"
        );
        assert!(map.put_if_absent(&key, Box::new(5)).is_ok());
        let (present, unused) = map.put_if_absent(&key, Box::new(6)).unwrap_err();
        assert_eq!((present, *unused), (5, 6));
        assert!(
            map.replace(&key, 5, Box::new(7)).is_ok(),
            "another box of the same number matches"
        );
        assert_eq!(*map.replace(&key, 5, Box::new(8)).unwrap_err(), 8);
        assert_eq!(map.get("p"), Some(7));
        map.put(&key, Box::new(9));
        let copy = Chm::<u64>::default();
        copy.put(&"q".into(), Box::new(1));
        copy.replace_all_with(&map);
        assert_eq!((copy.get("p"), copy.get("q")), (Some(9), None));
        map.remove("p");
        assert_eq!(map.get("p"), None);
    }

    /// Readers and writers of one key on several threads, through every unsafe path (protected
    /// reads, stores that retire the old box, nodes dropped with the map): every read sees a
    /// value some writer stored. `tests/race.rs` runs the two designs on it with 32 threads.
    #[test]
    fn concurrent_updates_read_only_stored_values() {
        let map = Chm::<u64>::default();
        let key: ProducerName = "p".into();
        map.put(&key, Box::new(0));
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (map, key) = (&map, &key);
                s.spawn(move || {
                    for i in 0..20_000u64 {
                        let seen = map.get("p").unwrap();
                        assert!(seen < 4 * 20_000 + 4, "{seen}");
                        let _ = map.replace(key, seen, Box::new(i * 4 + t));
                    }
                });
            }
        });
        assert!(map.get("p").is_some());
    }
}

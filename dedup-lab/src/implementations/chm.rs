//! A model of Java's `ConcurrentHashMap<String, Long>` as Pulsar's `MessageDeduplication` uses it
//! (`get`, `put`, `putIfAbsent`, `replace(key, expected, new)`, `remove`, `clear`), the map under
//! both arms of the write-up's JMH benchmark; `chm-monitor-unboxed` and `chm-replace-unboxed` are those
//! two arms on it.
//!
//! What it models, as Java 8+ has it:
//! - `get` takes no lock and writes no shared memory: it finds the key's node and reads its value
//!   (Java's `volatile V val`).
//! - An update of a present key locks the key's bin (Java: `synchronized` on the bin's first node)
//!   and overwrites the node's value; `replace(key, expected, new)` compares by value under that
//!   lock (Java's `equals`). A new key is inserted with a compare-and-swap on the table, no lock
//!   (Java: `casTabAt` into an empty bin).
//!
//! What it does not model, and why the value is held in place:
//! - The box. Java stores a `Long` per update (24 B, bump-allocated in a thread-local buffer and
//!   freed by a copying young collection that never touches it once it is dead). A box per update
//!   here cost a `malloc`, a `free` and an epoch retirement, and the boxed models ran at 2 to 8
//!   times their JVM originals' time on the write-up's cases, where the unboxed ones stay within
//!   the calibration band: the lab's report calibrates these models against `jvm-monitor` and
//!   `jvm-replace` on every claim.
//! - Java's table: this is papaya's, which pins an epoch guard per access and resizes
//!   incrementally where Java transfers bins behind forwarding nodes. A bin here holds one key,
//!   where Java chains colliding keys under one lock (the benchmark's 64 producers over 128 bins
//!   rarely collide).
//! - `addCount`'s size counter (a `LongAdder` touched when a key is added or removed, never by
//!   `replace` or by `put` of a present key), treeified bins, and the JVM's own costs: a thin
//!   lock's compare-and-swap, the collector.

use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard, PoisonError};

use papaya::{HashMap, OccupiedError};

use super::{Hasher, ProducerName, WatermarkStore};
use crate::DupStatus;
use crate::sequence::{AtomicWord, Watermark, classify};

/// One key's node: the lock of its bin and its value in place, as one atomic word.
struct Node<W: Watermark> {
    bin: Mutex<()>,
    value: W::Atomic,
}

impl<W: Watermark> Node<W> {
    fn new(value: W) -> Self {
        Self {
            bin: Mutex::new(()),
            value: W::Atomic::new(value.encode()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        // The lock guards no data of its own: a poisoned one is as good as a clean one.
        self.bin.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read(&self) -> W {
        W::decode(self.value.load(Ordering::Acquire))
            .expect("a node always holds a value: only encoded values are stored, never NONE")
    }

    /// Call with the bin locked, so stores of one key never race.
    fn store(&self, value: W) {
        self.value.store(value.encode(), Ordering::Release);
    }
}

/// The map: producer name → watermark.
pub struct Chm<W: Watermark> {
    table: HashMap<ProducerName, Node<W>, Hasher>,
}

impl<W: Watermark> Default for Chm<W> {
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
        self.table.get(key, &guard).map(Node::read)
    }

    /// `put`: the value of `key` becomes `value`. A present key's node is found first and its
    /// value replaced under the bin's lock; only an absent key gets a node.
    pub fn put(&self, key: &ProducerName, value: W) {
        let guard = self.table.guard();
        if let Some(node) = self.table.get(key, &guard) {
            let _bin = node.lock();
            node.store(value);
            return;
        }
        if let Err(OccupiedError { current, .. }) =
            self.table.try_insert(key.clone(), Node::new(value), &guard)
        {
            let _bin = current.lock();
            current.store(value);
        }
    }

    /// `putIfAbsent`: inserts `value` when `key` is absent and returns `None`; otherwise changes
    /// nothing and returns the present value.
    pub fn put_if_absent(&self, key: &ProducerName, value: W) -> Option<W> {
        let guard = self.table.guard();
        match self.table.try_insert(key.clone(), Node::new(value), &guard) {
            Ok(_) => None,
            Err(OccupiedError { current, .. }) => Some(current.read()),
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
        if node.read() != expected {
            return false;
        }
        node.store(value);
        true
    }

    /// `remove`.
    pub fn remove(&self, key: &str) {
        self.table.remove(key, &self.table.guard());
    }

    /// `clear`, then a `put` of every entry of `other` (Java: `other.forEach(this::put)`).
    pub fn replace_all_with(&self, other: &Chm<W>) {
        self.table.clear(&self.table.guard());
        let guard = other.table.guard();
        for (key, node) in other.table.iter(&guard) {
            self.put(key, node.read());
        }
    }
}

/// How a store admits: the decision behind a topic-wide monitor ([`Monitor`]), or per producer
/// with `putIfAbsent` / `replace` ([`ReplaceLoop`]).
pub trait Admission: Default + Send + Sync + 'static {
    fn admit<W: Watermark>(&self, at: Publish<'_, W>) -> DupStatus;
    /// The benchmark's shared case: `producer`'s pushed value becomes `next` of it, the arm's way.
    fn advance<W: Watermark>(
        &self,
        pushed: &Chm<W>,
        producer: &ProducerName,
        next: fn(Option<W>) -> W,
    ) -> W;
}

/// The topic-wide monitor: Pulsar before #26763, `synchronized (highestSequencedPushed)` around a
/// `get` of the pushed id and, for a new id, a `put`, which also locks the key's bin inside the
/// monitor.
#[derive(Default)]
pub struct Monitor(Mutex<()>);

impl Admission for Monitor {
    fn admit<W: Watermark>(&self, at: Publish<'_, W>) -> DupStatus {
        // The monitor guards no data of its own: a poisoned one is as good as a clean one.
        let _topic = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match at.pushed.get(at.producer) {
            Some(prev) if at.low <= prev => {
                classify(at.low, Some(prev), at.persisted.get(at.producer))
            }
            _ => {
                at.pushed.put(at.producer, at.high);
                DupStatus::NotDup
            }
        }
    }

    /// `put(get + 1)` inside the monitor.
    fn advance<W: Watermark>(
        &self,
        pushed: &Chm<W>,
        producer: &ProducerName,
        next: fn(Option<W>) -> W,
    ) -> W {
        let _topic = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let value = next(pushed.get(producer));
        pushed.put(producer, value);
        value
    }
}

/// PR #26763's loop, no topic-wide lock: read the producer's pushed id without a lock, then
/// `putIfAbsent` a new producer or `replace(name, prev, new)` an old one (which locks that
/// producer's bin only), going round again when another connection of the producer won.
#[derive(Default)]
pub struct ReplaceLoop;

impl Admission for ReplaceLoop {
    fn admit<W: Watermark>(&self, at: Publish<'_, W>) -> DupStatus {
        loop {
            let found = at.pushed.get(at.producer);
            if let Some(prev) = found
                && at.low <= prev
            {
                return classify(at.low, found, at.persisted.get(at.producer));
            }
            let won = match found {
                None => at.pushed.put_if_absent(at.producer, at.high).is_none(),
                Some(prev) => at.pushed.replace(at.producer, prev, at.high),
            };
            if won {
                return DupStatus::NotDup;
            }
            // Lost a race: re-read; the new value may now make this a duplicate.
        }
    }

    /// `replace(prev, prev + 1)` (or `putIfAbsent` for a new producer) until it holds.
    fn advance<W: Watermark>(
        &self,
        pushed: &Chm<W>,
        producer: &ProducerName,
        next: fn(Option<W>) -> W,
    ) -> W {
        loop {
            let found = pushed.get(producer);
            let value = next(found);
            let won = match found {
                None => pushed.put_if_absent(producer, value).is_none(),
                Some(prev) => pushed.replace(producer, prev, value),
            };
            if won {
                return value;
            }
        }
    }
}

/// One kind of watermark in Pulsar's two maps, pushed and persisted, admitted as `A` does; the
/// persisted id is `put` outside any monitor, as Pulsar does.
pub struct ChmStore<W: Watermark, A> {
    admission: A,
    pushed: Chm<W>,
    persisted: Chm<W>,
}

/// Watermarks of one kind in the two maps, every admission behind one monitor: Pulsar's sequence
/// ids before #26763, and its replicated positions before and after (`synchronized
/// (highestReplPositionPushed)`).
pub type Monitored<W> = ChmStore<W, Monitor>;

/// One publish to admit: the store's two maps, the producer and its batch's lowest and highest
/// ids.
pub struct Publish<'a, W: Watermark> {
    pub pushed: &'a Chm<W>,
    pub persisted: &'a Chm<W>,
    pub producer: &'a ProducerName,
    pub low: W,
    pub high: W,
}

impl<W: Watermark, A: Default> Default for ChmStore<W, A> {
    fn default() -> Self {
        Self {
            admission: A::default(),
            pushed: Chm::default(),
            persisted: Chm::default(),
        }
    }
}

impl<W: Watermark, A: Admission> WatermarkStore<W> for ChmStore<W, A> {
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

    fn advance(&self, producer: &ProducerName, next: fn(Option<W>) -> W) -> W {
        self.admission.advance(&self.pushed, producer, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_replace_values_and_compare_by_value() {
        let map = Chm::<u64>::default();
        let key: ProducerName = "p".into();
        assert_eq!(map.get("p"), None);
        assert!(!map.replace(&key, 0, 1), "absent keys are not replaced");
        assert_eq!(map.put_if_absent(&key, 5), None);
        assert_eq!(map.put_if_absent(&key, 6), Some(5));
        assert!(map.replace(&key, 5, 7));
        assert!(!map.replace(&key, 5, 8));
        assert_eq!(map.get("p"), Some(7));
        map.put(&key, 9);
        let copy = Chm::<u64>::default();
        copy.put(&"q".into(), 1);
        copy.replace_all_with(&map);
        assert_eq!((copy.get("p"), copy.get("q")), (Some(9), None));
        map.remove("p");
        assert_eq!(map.get("p"), None);
    }
}

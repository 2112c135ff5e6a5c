//! The primitive-bucketed layout of draft PR #26024, shared by four designs: ordered ledgers
//! (`BTreeMap`) → one hashbrown `HashTable<(entry, packed)>` per ledger, plus an optional prefix
//! index that answers same-ledger `remove_all_up_to` and ordered visits without sorting.
//!
//! Differences from the draft, on purpose: the bitset index is relative to the bucket's first
//! word (no 2^20 absolute-id cliff), it is disabled only while the bucket is too sparse for it
//! and comes back with the next bucket, and whole-ledger removal visits entries in ascending order
//! (the trait promises it; the draft visited those unordered).

use std::collections::{BTreeMap, VecDeque};
use std::hash::BuildHasher;
use std::marker::PhantomData;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use roaring::RoaringTreemap;

use crate::{Mark, PendingAck, PendingAcks};

/// What makes one bucketed design: its name, prefix index and hasher.
pub trait BucketedVariant: Send + Sync + 'static {
    const NAME: &'static str;
    type Index: PrefixIndex + Send + Sync;
    /// A fixed-seed hasher, so every run probes the same way (instruction counts repeat exactly).
    type Hasher: BuildHasher + Default + Send + Sync;
}

/// A per-ledger index of present entry ids that can list them in order.
pub trait PrefixIndex: Default + 'static {
    /// Records `entry`; `bucket_len` (after the insert) lets an index refuse to grow past a
    /// density limit.
    fn insert(&mut self, entry: u64, bucket_len: usize);

    fn remove(&mut self, entry: u64);

    /// Unrecords and visits, ascending, every entry ≤ `mark`. Returns false, having done
    /// nothing, when this index cannot answer (absent or disabled).
    fn take_up_to(&mut self, mark: u64, visit: impl FnMut(u64)) -> bool;

    /// Visits every entry ascending; false, having visited nothing, when it cannot.
    fn visit_ascending(&self, visit: impl FnMut(u64)) -> bool;
}

/// No index: ordered visits and prefix cleanup scan the table and sort.
#[derive(Default)]
pub struct NoIndex;

impl PrefixIndex for NoIndex {
    fn insert(&mut self, _: u64, _: usize) {}
    fn remove(&mut self, _: u64) {}
    fn take_up_to(&mut self, _: u64, _: impl FnMut(u64)) -> bool {
        false
    }
    fn visit_ascending(&self, _: impl FnMut(u64)) -> bool {
        false
    }
}

/// A bitset of present entry ids relative to its first 64-bit word, trimmed at both ends as
/// entries leave, so a window that slides through the id space keeps a constant size.
#[derive(Default)]
pub struct BitsetIndex {
    /// `entry >> 6` of `words[0]`.
    first_word: u64,
    words: VecDeque<u64>,
    /// Set when the bucket is too sparse for a bitset (more than [`Self::BITS_PER_ENTRY`] bits
    /// per entry); the bucket then falls back to scanning until it empties and is dropped.
    disabled: bool,
}

impl BitsetIndex {
    /// Density limit: at most 64 bits (8 bytes) of index per entry, plus a little slack.
    const BITS_PER_ENTRY: u64 = 64;
    const SLACK_WORDS: u64 = 16;

    fn fits(words: u64, bucket_len: usize) -> bool {
        words <= Self::SLACK_WORDS + bucket_len as u64 * Self::BITS_PER_ENTRY / 64
    }

    fn disable(&mut self) {
        self.disabled = true;
        self.words = VecDeque::new();
    }

    fn trim(&mut self) {
        while self.words.front() == Some(&0) {
            self.words.pop_front();
            self.first_word += 1;
        }
        while self.words.back() == Some(&0) {
            self.words.pop_back();
        }
    }

    fn visit_bits(word_index: u64, mut bits: u64, visit: &mut impl FnMut(u64)) {
        while bits != 0 {
            visit(word_index * 64 + u64::from(bits.trailing_zeros()));
            bits &= bits - 1;
        }
    }
}

impl PrefixIndex for BitsetIndex {
    fn insert(&mut self, entry: u64, bucket_len: usize) {
        if self.disabled {
            return;
        }
        let word = entry >> 6;
        if self.words.is_empty() {
            self.first_word = word;
            self.words.push_back(0);
        } else if word < self.first_word {
            let grow = self.first_word - word;
            if !Self::fits(self.words.len() as u64 + grow, bucket_len) {
                return self.disable();
            }
            for _ in 0..grow {
                self.words.push_front(0);
            }
            self.first_word = word;
        } else if word - self.first_word >= self.words.len() as u64 {
            let needed = word - self.first_word + 1;
            if !Self::fits(needed, bucket_len) {
                return self.disable();
            }
            self.words.resize(needed as usize, 0);
        }
        self.words[(word - self.first_word) as usize] |= 1 << (entry & 63);
    }

    fn remove(&mut self, entry: u64) {
        if self.disabled {
            return;
        }
        let Some(offset) = (entry >> 6).checked_sub(self.first_word) else {
            return;
        };
        if let Some(word) = self.words.get_mut(offset as usize) {
            *word &= !(1 << (entry & 63));
            self.trim();
        }
    }

    fn take_up_to(&mut self, mark: u64, mut visit: impl FnMut(u64)) -> bool {
        if self.disabled {
            return false;
        }
        while let Some(word) = self.words.front_mut() {
            let base = self.first_word * 64;
            if base > mark {
                break;
            }
            let below = match mark - base {
                63.. => u64::MAX,
                m => (2 << m) - 1,
            };
            let taken = *word & below;
            *word &= !below;
            let rest = *word;
            Self::visit_bits(self.first_word, taken, &mut visit);
            if rest != 0 {
                break;
            }
            self.words.pop_front();
            self.first_word += 1;
        }
        self.trim();
        true
    }

    fn visit_ascending(&self, mut visit: impl FnMut(u64)) -> bool {
        if self.disabled {
            return false;
        }
        for (i, &bits) in self.words.iter().enumerate() {
            Self::visit_bits(self.first_word + i as u64, bits, &mut visit);
        }
        true
    }
}

/// A `RoaringTreemap` of absolute entry ids: compressed, no density limit.
#[derive(Default)]
pub struct RoaringIndex(RoaringTreemap);

impl PrefixIndex for RoaringIndex {
    fn insert(&mut self, entry: u64, _: usize) {
        self.0.insert(entry);
    }

    fn remove(&mut self, entry: u64) {
        self.0.remove(entry);
    }

    fn take_up_to(&mut self, mark: u64, mut visit: impl FnMut(u64)) -> bool {
        self.0
            .iter()
            .take_while(|&e| e <= mark)
            .for_each(&mut visit);
        self.0.remove_range(..=mark);
        true
    }

    fn visit_ascending(&self, visit: impl FnMut(u64)) -> bool {
        self.0.iter().for_each(visit);
        true
    }
}

/// One ledger's entries.
struct Bucket<I> {
    table: HashTable<(u64, PendingAck)>,
    index: I,
}

impl<I: PrefixIndex> Bucket<I> {
    fn new() -> Self {
        Self {
            table: HashTable::new(),
            index: I::default(),
        }
    }

    /// Visits every entry ascending: through the index when it can, else by sorting a copy.
    fn visit_sorted(
        &self,
        hasher: &impl BuildHasher,
        ledger: u64,
        visit: &mut impl FnMut(u64, u64, PendingAck),
    ) {
        let indexed = self.index.visit_ascending(|entry| {
            let (_, ack) = self
                .table
                .find(hasher.hash_one(entry), |&(e, _)| e == entry)
                .expect("the index lists only present entries");
            visit(ledger, entry, *ack);
        });
        if !indexed {
            let mut all: Vec<(u64, PendingAck)> = self.table.iter().copied().collect();
            all.sort_unstable_by_key(|&(e, _)| e);
            for (entry, ack) in all {
                visit(ledger, entry, ack);
            }
        }
    }

    /// Removes entries ≤ `mark`, visiting them ascending; returns how many.
    fn remove_up_to(
        &mut self,
        hasher: &impl BuildHasher,
        ledger: u64,
        mark: u64,
        on_removed: &mut impl FnMut(u64, u64, PendingAck),
    ) -> usize {
        let before = self.table.len();
        let Self { table, index } = self;
        let indexed = index.take_up_to(mark, |entry| {
            let found = table.find_entry(hasher.hash_one(entry), |&(e, _)| e == entry);
            let ((_, ack), _) = found
                .expect("the index lists only present entries")
                .remove();
            on_removed(ledger, entry, ack);
        });
        if !indexed {
            // The draft's `removeIf` full-table scan, then a sort for the ascending callbacks.
            let mut prefix: Vec<(u64, PendingAck)> = Vec::new();
            table.retain(|&mut (e, ack)| {
                let take = e <= mark;
                if take {
                    prefix.push((e, ack));
                }
                !take
            });
            prefix.sort_unstable_by_key(|&(e, _)| e);
            for (entry, ack) in prefix {
                on_removed(ledger, entry, ack);
            }
        }
        before - table.len()
    }
}

/// The bucketed map for one variant `V`.
pub struct Bucketed<V: BucketedVariant> {
    ledgers: BTreeMap<u64, Bucket<V::Index>>,
    hasher: V::Hasher,
    len: usize,
    variant: PhantomData<V>,
}

impl<V: BucketedVariant> Default for Bucketed<V> {
    fn default() -> Self {
        Self {
            ledgers: BTreeMap::new(),
            hasher: V::Hasher::default(),
            len: 0,
            variant: PhantomData,
        }
    }
}

impl<V: BucketedVariant> PendingAcks for Bucketed<V> {
    const NAME: &'static str = V::NAME;
    type Shared = crate::shared::RwLocked<Self>;

    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        let hasher = &self.hasher;
        let bucket = self.ledgers.entry(ledger).or_insert_with(Bucket::new);
        let hash = hasher.hash_one(entry);
        match bucket
            .table
            .entry(hash, |&(e, _)| e == entry, |&(e, _)| hasher.hash_one(e))
        {
            Entry::Occupied(mut slot) => {
                slot.get_mut().1 = ack;
                false
            }
            Entry::Vacant(slot) => {
                slot.insert((entry, ack));
                bucket.index.insert(entry, bucket.table.len());
                self.len += 1;
                true
            }
        }
    }

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let bucket = self.ledgers.get(&ledger)?;
        let hash = self.hasher.hash_one(entry);
        bucket
            .table
            .find(hash, |&(e, _)| e == entry)
            .map(|&(_, ack)| ack)
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        let bucket = self.ledgers.get_mut(&ledger)?;
        let hash = self.hasher.hash_one(entry);
        bucket
            .table
            .find_mut(hash, |&(e, _)| e == entry)
            .map(|(_, ack)| ack)
    }

    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let bucket = self.ledgers.get_mut(&ledger)?;
        let hash = self.hasher.hash_one(entry);
        let found = bucket.table.find_entry(hash, |&(e, _)| e == entry).ok()?;
        let ((_, ack), _) = found.remove();
        bucket.index.remove(entry);
        if bucket.table.is_empty() {
            self.ledgers.remove(&ledger);
        }
        self.len -= 1;
        Some(ack)
    }

    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        let kept = self.ledgers.split_off(&mark.ledger);
        for (ledger, bucket) in std::mem::replace(&mut self.ledgers, kept) {
            self.len -= bucket.table.len();
            bucket.visit_sorted(&self.hasher, ledger, on_removed);
        }
        let Some(mark_entry) = mark.entry else {
            return;
        };
        let Some(bucket) = self.ledgers.get_mut(&mark.ledger) else {
            return;
        };
        self.len -= bucket.remove_up_to(&self.hasher, mark.ledger, mark_entry, on_removed);
        if bucket.table.is_empty() {
            self.ledgers.remove(&mark.ledger);
        }
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        for (&ledger, bucket) in &self.ledgers {
            bucket.visit_sorted(&self.hasher, ledger, visit);
        }
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.len = 0;
        for (ledger, bucket) in std::mem::take(&mut self.ledgers) {
            bucket.visit_sorted(&self.hasher, ledger, visit);
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ascending(index: &impl PrefixIndex) -> Vec<u64> {
        let mut out = Vec::new();
        assert!(index.visit_ascending(|e| out.push(e)));
        out
    }

    #[test]
    fn bitset_index_is_relative_and_trims_as_the_window_slides() {
        let mut index = BitsetIndex::default();
        let base = (1 << 40) + 5;
        for (n, e) in (base..base + 200).enumerate() {
            index.insert(e, n + 1);
        }
        assert_eq!(
            index.words.len(),
            4,
            "200 ids from an unaligned base span 4 words"
        );
        let mut taken = Vec::new();
        assert!(index.take_up_to(base + 99, |e| taken.push(e)));
        assert_eq!(taken, (base..base + 100).collect::<Vec<_>>());
        assert_eq!(
            ascending(&index),
            (base + 100..base + 200).collect::<Vec<_>>()
        );
        assert_eq!(index.words.len(), 3, "the emptied first word is gone");
        index.insert(base - 1000, 101); // before the window, still dense enough
        assert_eq!(ascending(&index)[0], base - 1000);
    }

    #[test]
    fn bitset_index_turns_off_when_too_sparse_and_the_bucket_still_answers() {
        let mut index = BitsetIndex::default();
        index.insert(0, 1);
        index.insert(u64::MAX, 2);
        assert!(index.disabled);
        assert!(!index.take_up_to(10, |_| panic!("disabled index visits nothing")));
        assert!(!index.visit_ascending(|_| panic!("disabled index visits nothing")));
    }

    #[test]
    fn bitset_prefix_take_handles_word_edges_and_the_top_id() {
        let mut index = BitsetIndex::default();
        for (n, e) in [u64::MAX - 64, u64::MAX - 1, u64::MAX]
            .into_iter()
            .enumerate()
        {
            index.insert(e, n + 1);
        }
        let mut taken = Vec::new();
        assert!(index.take_up_to(u64::MAX - 1, |e| taken.push(e)));
        assert_eq!(taken, [u64::MAX - 64, u64::MAX - 1]);
        assert_eq!(ascending(&index), [u64::MAX]);
    }

    #[test]
    fn roaring_index_takes_prefixes_in_order() {
        let mut index = RoaringIndex::default();
        for e in [7, 1 << 33, 3, u64::MAX] {
            index.insert(e, 0);
        }
        let mut taken = Vec::new();
        assert!(index.take_up_to(1 << 33, |e| taken.push(e)));
        assert_eq!(taken, [3, 7, 1 << 33]);
        assert_eq!(ascending(&index), [u64::MAX]);
    }
}

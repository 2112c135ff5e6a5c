//! The baseline: an ordered map from key to count.

use std::collections::BTreeMap;

use crate::Counter;

#[derive(Default)]
pub struct BTreeCounter(BTreeMap<u64, u64>);

impl Counter for BTreeCounter {
    const NAME: &'static str = "btree-counter";

    fn add(&mut self, key: u64) -> u64 {
        let count = self.0.entry(key).or_insert(0);
        *count += 1;
        *count
    }

    fn count(&self, key: u64) -> u64 {
        self.0.get(&key).copied().unwrap_or(0)
    }
}

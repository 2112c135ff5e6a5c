//! A hash map from key to count (std's, with its default hasher).

use std::collections::HashMap;

use crate::Counter;

#[derive(Default)]
pub struct HashCounter(HashMap<u64, u64>);

impl Counter for HashCounter {
    const NAME: &'static str = "hash-counter";

    fn add(&mut self, key: u64) -> u64 {
        let count = self.0.entry(key).or_insert(0);
        *count += 1;
        *count
    }

    fn count(&self, key: u64) -> u64 {
        self.0.get(&key).copied().unwrap_or(0)
    }
}

//! __NAME__-lab: __QUESTION__
//!
//! Every design is one file under `implementations/`; `designs!` below is the one list
//! that the tests, the bench binaries and the report iterate.

extern crate self as __CRATE__;

// Every design, the baseline first: the one list the tests, the bench binaries and the report
// iterate. A new design is one file under `implementations/` and one line here.
lab_registry::designs! {
    crate __CRATE__; trait Counter;
    btree_counter => BTreeCounter,
    hash_counter => HashCounter,
}

pub mod lab;

pub mod implementations {
    pub mod btree_counter;
    pub mod hash_counter;
}

/// What every design does, behind one trait: counts how often each key was added.
pub trait Counter: Default + Send + 'static {
    /// The design's name in tables and on the command line.
    const NAME: &'static str;
    /// Adds one occurrence of `key`; returns how many it has now.
    fn add(&mut self, key: u64) -> u64;
    /// How many occurrences of `key` were added.
    fn count(&self, key: u64) -> u64;
}

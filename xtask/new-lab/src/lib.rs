//! __NAME__-lab: __QUESTION__
//!
//! Every design is one file under `implementations/`; [`with_implementations!`] is the one list
//! that the tests, the bench binaries and the report iterate.

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

/// Calls `$callback!` with every design as `module => Type`, the baseline first. A new design is
/// one file and one line here.
#[macro_export]
macro_rules! with_implementations {
    ($callback:ident) => {
        $callback! {
            btree_counter => $crate::implementations::btree_counter::BTreeCounter,
            hash_counter => $crate::implementations::hash_counter::HashCounter,
        }
    };
}

macro_rules! registry {
    ($($list:tt)*) => {
        lab_registry::implementation_registry! { trait Counter; $($list)* }
    };
}
with_implementations!(registry);

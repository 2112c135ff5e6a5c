//! `primitive-bucketed`: draft #26024's layout (ordered ledgers → per-ledger primitive hash table)
//! with its bitset prefix index, made relative to the bucket (see [`super::bucketed`]); foldhash.

use super::bucketed::{BitsetIndex, Bucketed, BucketedVariant};

pub struct Variant;

impl BucketedVariant for Variant {
    const NAME: &'static str = "primitive-bucketed";
    type Index = BitsetIndex;
    type Hasher = foldhash::fast::FixedState;
}

pub type PrimitiveBucketed = Bucketed<Variant>;

//! `primitive-unindexed`: the bucketed layout without a prefix index, to show what the index buys:
//! same-ledger cleanup and ordered visits scan the whole table and sort.

use super::bucketed::{Bucketed, BucketedVariant, NoIndex};

pub struct Variant;

impl BucketedVariant for Variant {
    const NAME: &'static str = "primitive-unindexed";
    type Index = NoIndex;
    type Hasher = foldhash::fast::FixedState;
}

pub type PrimitiveUnindexed = Bucketed<Variant>;

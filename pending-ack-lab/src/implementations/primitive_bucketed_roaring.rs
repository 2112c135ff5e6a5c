//! `primitive-bucketed-roaring`: the bucketed layout with a `RoaringTreemap` as the prefix index
//! (compressed, no density limit; the structure Pulsar's client uses for negative acks).

use super::bucketed::{Bucketed, BucketedVariant, RoaringIndex};

pub struct Variant;

impl BucketedVariant for Variant {
    const NAME: &'static str = "primitive-bucketed-roaring";
    type Index = RoaringIndex;
    type Hasher = foldhash::fast::FixedState;
}

pub type PrimitiveBucketedRoaring = Bucketed<Variant>;

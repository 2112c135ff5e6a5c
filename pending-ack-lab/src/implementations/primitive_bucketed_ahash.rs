//! `primitive-bucketed-ahash`: `primitive-bucketed` with ahash instead of foldhash, the hasher
//! dimension of the comparison.

use std::hash::BuildHasher;

use super::bucketed::{BitsetIndex, Bucketed, BucketedVariant};

/// ahash with fixed seeds, so every run probes the same way.
pub struct FixedAhash(ahash::RandomState);

impl Default for FixedAhash {
    fn default() -> Self {
        Self(ahash::RandomState::with_seeds(
            0x243f_6a88_85a3_08d3,
            0x1319_8a2e_0370_7344,
            0xa409_3822_299f_31d0,
            0x082e_fa98_ec4e_6c89,
        ))
    }
}

impl BuildHasher for FixedAhash {
    type Hasher = ahash::AHasher;

    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}

pub struct Variant;

impl BucketedVariant for Variant {
    const NAME: &'static str = "primitive-bucketed-ahash";
    type Index = BitsetIndex;
    type Hasher = FixedAhash;
}

pub type PrimitiveBucketedAhash = Bucketed<Variant>;

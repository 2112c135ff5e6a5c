//! Where one pass's instances land in the heap and in which order its cases and cells run.

use crate::lab::BenchCase;
use crate::stats::Seeded;

/// Where one pass's data lands and in which order it runs: a seeded generator that shuffles
/// orders and sizes the heap spacers left live between allocations, so each pass places every
/// instance at other heap offsets relative to the others and to the allocator's bins.
pub(super) struct Placement {
    rng: Seeded,
    spacers: Vec<Vec<u8>>,
}

impl Placement {
    pub(super) fn new(seed: u64) -> Self {
        let mut placement = Self {
            rng: Seeded::new(seed),
            spacers: Vec::new(),
        };
        // Moves the heap's starting point: up to 64 blocks of up to 4 KiB (below malloc's mmap
        // threshold, so they come from the main heap).
        for _ in 0..placement.below(64) {
            placement.spacer();
        }
        placement
    }

    /// Restarts the orders and sizes at a case's own seed (the pass's seed and the case's name),
    /// keeping the spacers already placed: a pass repeated on some of its cases with the same
    /// seed opens, orders and spaces each of them as the first time.
    pub(super) fn reseed_for(&mut self, seed: u64, case: &BenchCase) {
        let name = case.to_string();
        // FNV-1a of the case's name, mixed into the pass's seed.
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        self.rng = Seeded::new(seed ^ hash);
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    pub(super) fn shuffle<T>(&mut self, items: &mut [T]) {
        self.rng.shuffle(items);
    }

    /// Leaves a live, touched block of 0..4 KiB on the heap, moving where the next allocations
    /// land.
    pub(super) fn spacer(&mut self) {
        let len = self.below(4096) as usize;
        self.spacers.push(vec![1; len]);
    }
}

//! Allocations and bytes per operation, and retained heap, with the counting allocator in its own
//! process (timing binaries never carry it); see `labkit::measure::alloc_main`. Every lab's
//! `alloc` bench is this file with the lab's `benches/entry.rs`.

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/entry.rs"));

#[global_allocator]
static ALLOC: labkit::alloc::CountingAlloc = labkit::alloc::CountingAlloc;

fn main() {
    labkit::measure::alloc_main(&LAB);
}

//! Allocations and bytes per operation, and retained heap, with the counting allocator in its own
//! process (timing binaries never carry it); see `labkit::measure::alloc_main`.

#[global_allocator]
static ALLOC: labkit::alloc::CountingAlloc = labkit::alloc::CountingAlloc;

fn main() {
    labkit::measure::alloc_main(&coalesce_lab::lab::LAB);
}

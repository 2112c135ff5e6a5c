#[global_allocator]
static ALLOC: labkit::alloc::CountingAlloc = labkit::alloc::CountingAlloc;

fn main() {
    labkit::measure::alloc_main(&tiny_lab::LAB);
}

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() {
    labkit::measure::dhat_profile_main(&tiny_lab::LAB);
}

//! A DHAT heap profile of one implementation on one case; see
//! `labkit::measure::dhat_profile_main`. Every lab's `dhat_profile` bench is this file with the
//! lab's `benches/entry.rs`.

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/entry.rs"));

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() {
    labkit::measure::dhat_profile_main(&LAB);
}

//! A DHAT heap profile of one implementation on one case; see
//! `labkit::measure::dhat_profile_main`.

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() {
    labkit::measure::dhat_profile_main(&coalesce_lab::lab::LAB);
}

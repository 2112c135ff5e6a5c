// This lab as the kit's bench binaries (`labkit/bench-binaries/`) see it: its description and
// its one list of implementations.
#[allow(unused_imports)]
use dedup_lab::{lab::LAB, with_implementations};

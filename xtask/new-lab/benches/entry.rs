// This lab as the kit's bench binaries (`labkit/bench-binaries/`) see it: its description and
// its one list of implementations.
#[allow(unused_imports)]
use __CRATE__::{lab::LAB, with_implementations};

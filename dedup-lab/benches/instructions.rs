//! Instructions per operation (callgrind through gungraun), deterministic, so it is the metric a
//! regression gate can use on a noisy machine: one function per implementation of the registry
//! list, one bench per counted case of the lab's description; see `labkit::instruction_benches!`.

macro_rules! benches {
    ($($list:tt)*) => {
        labkit::instruction_benches!(dedup_lab::lab::LAB; $($list)*);
    };
}
dedup_lab::with_implementations!(benches);

//! The kit's fixture lab as a lab crate of its own.

pub use labkit::testing::fixture::TINY as LAB;

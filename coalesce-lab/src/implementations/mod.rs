//! One file per design, listed once in `lib.rs` (`designs!`).

pub mod bounded_pool;
pub mod coalescing;
pub mod coalescing_gzip_once;
pub mod coalescing_pooled;
pub mod coalescing_window;
pub mod serial_queue;
pub mod shared_future;
pub mod static_body;

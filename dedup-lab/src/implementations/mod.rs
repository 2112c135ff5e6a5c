//! One file per design. The list that benches and tests iterate is
//! `with_implementations!` in `lib.rs`; [`harness_floor`] is not a design: the
//! harness alone, measured beside them. The designs keyed by producer name share their adapter
//! to the trait ([`ByName`]) and what each keeps per producer.

pub mod atomic_slot;
mod by_name;
pub mod chm;
pub mod chm_monitor_unboxed;
pub mod chm_replace_unboxed;
pub mod harness_floor;
pub mod packed_handle;
pub mod papaya_cas;
pub mod producer_handle;
pub mod sharded_lock;
pub mod topic_mutex;

pub use by_name::{ByName, Hasher, ProducerName, StoreDesign, WatermarkStore, Watermarks};

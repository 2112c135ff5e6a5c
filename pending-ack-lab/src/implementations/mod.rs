//! One file per design; [`bucketed`] is the shared core of the four hash-table designs, which
//! differ only in their prefix index and hasher, and [`node_tree`] the Java-shaped tree under
//! `nested-node-tree`. [`harness_floor`] is not a design: the harness alone, measured beside them.

pub mod bucketed;
pub mod dense_window;
pub mod harness_floor;
pub mod nested_node_tree;
pub mod nested_tree;
pub mod node_tree;
pub mod primitive_bucketed;
pub mod primitive_bucketed_ahash;
pub mod primitive_bucketed_roaring;
pub mod primitive_unindexed;
pub mod striped_window;

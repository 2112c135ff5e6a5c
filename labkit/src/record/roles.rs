//! The cells measured beside the designs: the reference cells of every row (the baseline's A/A
//! twin and its slowed twins, ids in a [`Role`] other than [`Role::Design`]) and the lab's
//! harness floor.

use super::Role;

/// The name of a lab's harness floor: a reference implementation that does no work behind the
/// lab's trait (it answers something valid cheaply), measured in every stage like a design so
/// that a design's cost can be shown net of the harness. Never a contender: it gets no verdict,
/// no added passes and no correctness suite (it could not pass one).
pub const FLOOR: &str = "harness-floor";

/// Whether `name` is the harness floor's.
pub fn is_floor(name: &str) -> bool {
    name == FLOOR
}

/// The time the slowed twins add to each of the A/A twin's samples, in percent: every row
/// compares the baseline made this much slower (the twin's samples lengthened), so the report can
/// say which differences the run could detect (its power), next to the false-positive rate its
/// A/A twin shows.
pub const SLOWED_BY: [u32; 2] = [5, 10];

/// The reference cells beside the baseline in every row: its A/A twin (measured), then its slowed
/// twins (derived from the twin's samples in each pass).
pub fn reference_roles() -> Vec<Role> {
    std::iter::once(Role::Twin)
        .chain(SLOWED_BY.iter().map(|&p| Role::Slowed(p)))
        .collect()
}

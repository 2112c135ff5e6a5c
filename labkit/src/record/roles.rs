//! The roles an id's implementation field can name besides a design: the reference cells of every
//! row, the baseline's A/A twin and its slowed twins, named after the baseline, and the lab's
//! harness floor.

/// The name of a lab's harness floor: a reference implementation that does no work behind the
/// lab's trait (it answers something valid cheaply), measured in every stage like a design so
/// that a design's cost can be shown net of the harness. Never a contender: it gets no verdict,
/// no added passes and no correctness suite (it could not pass one).
pub const FLOOR: &str = "harness-floor";

/// Whether `name` is the harness floor's.
pub fn is_floor(name: &str) -> bool {
    name == FLOOR
}

/// The implementation name of the baseline's A/A twin: the baseline again, opened as a second,
/// separately placed instance and measured as if it were another design.
pub fn twin(baseline: &str) -> String {
    format!("{baseline}{TWIN_SUFFIX}")
}

/// The implementation a twin name stands for (`None` for a name that is not a twin's).
pub fn twin_of(name: &str) -> Option<&str> {
    name.strip_suffix(TWIN_SUFFIX)
}

const TWIN_SUFFIX: &str = "-again";

/// The time the slowed twins add to each of the baseline's samples, in percent: every row
/// measures the baseline made this much slower, so the report can say which differences the run
/// could detect (its power), next to the false-positive rate its A/A twin shows.
pub const SLOWED_BY: [u32; 2] = [5, 10];

/// The name of `baseline`'s twin slowed by `percent` (`topic-mutex-slowed-10`).
pub fn slowed_twin(baseline: &str, percent: u32) -> String {
    format!("{baseline}{SLOWED_SUFFIX}{percent}")
}

/// The implementation and percentage a slowed twin's name stands for.
pub fn slowed_twin_of(name: &str) -> Option<(&str, u32)> {
    let (implementation, percent) = name.rsplit_once(SLOWED_SUFFIX)?;
    Some((implementation, percent.parse().ok()?))
}

const SLOWED_SUFFIX: &str = "-slowed-";

/// The implementation a reference cell (A/A twin or slowed twin) measures, or `name` itself.
pub fn measured_implementation(name: &str) -> &str {
    twin_of(name)
        .or_else(|| slowed_twin_of(name).map(|(implementation, _)| implementation))
        .unwrap_or(name)
}

/// The reference cells measured beside `baseline` in every row: its A/A twin, then its slowed
/// twins.
pub fn reference_cells(baseline: &str) -> Vec<String> {
    std::iter::once(twin(baseline))
        .chain(SLOWED_BY.iter().map(|&p| slowed_twin(baseline, p)))
        .collect()
}

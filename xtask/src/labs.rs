//! The labs the driver knows. A new lab is a crate plus one line here (and its dependency line in
//! `xtask/Cargo.toml`); everything else the driver does is derived from the lab's description.

use anyhow::{Result, bail};
use labkit::document::LabReport;

/// Every lab, in report order.
pub const LABS: &[&'static dyn LabReport] = &[
    &dedup_lab::lab::LAB,
    &pending_ack_lab::lab::LAB,
    &coalesce_lab::lab::LAB,
];

/// The names of `labs`.
pub fn names(labs: &[&'static dyn LabReport]) -> Vec<&'static str> {
    labs.iter().map(|l| l.name()).collect()
}

/// The lab called `name`, or an error listing the valid ones.
pub fn find(name: &str) -> Result<&'static dyn LabReport> {
    find_in(LABS, name)
}

/// The lab of `labs` called `name` (the driver's tests pass fixture labs).
pub fn find_in(labs: &[&'static dyn LabReport], name: &str) -> Result<&'static dyn LabReport> {
    match labs.iter().find(|l| l.name() == name) {
        Some(lab) => Ok(*lab),
        None => bail!(
            "unknown lab `{name}`; valid labs: {}",
            names(labs).join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::lab::{Vocabulary, counted_cases_of, timed_ids};
    use labkit::testing::fixture::{OTHER, TINY};

    #[test]
    fn counts_come_from_the_descriptions() {
        for lab in LABS {
            let implementations = lab.implementations().len();
            let timed_cases = labkit::lab::cases(*lab, |e, _| e.is_timed()).len();
            // every implementation and the baseline's A/A twin and slowed twins
            let references = labkit::record::reference_cells(lab.implementations()[0]).len();
            assert_eq!(references, 3);
            assert_eq!(
                timed_ids(*lab).len(),
                timed_cases * (implementations + references)
            );
            assert!(counted_cases_of(*lab).len() <= timed_cases);
            let vocabulary = Vocabulary::of(*lab);
            assert_eq!(vocabulary.implementations.len(), implementations);
        }
    }

    #[test]
    fn an_unknown_lab_is_refused_with_the_valid_ones() {
        let labs: &[&'static dyn LabReport] = &[&TINY, &OTHER];
        assert_eq!(find_in(labs, "other").unwrap().name(), "other");
        let err = find_in(labs, "ti").err().unwrap().to_string();
        assert!(
            err.contains("unknown lab `ti`; valid labs: tiny, other"),
            "{err}"
        );
        assert!(find(LABS[0].name()).is_ok());
    }
}

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

/// The names of all labs.
pub fn names() -> Vec<&'static str> {
    LABS.iter().map(|l| l.name()).collect()
}

/// The lab called `name`, or an error listing the valid ones.
pub fn find(name: &str) -> Result<&'static dyn LabReport> {
    match LABS.iter().find(|l| l.name() == name) {
        Some(lab) => Ok(*lab),
        None => bail!("unknown lab `{name}`; valid labs: {}", names().join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::lab::{Vocabulary, counted_cases_of, timed_ids};

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
        assert!(
            find("pending")
                .err()
                .unwrap()
                .to_string()
                .contains("dedup, pending-ack, coalesce")
        );
    }
}

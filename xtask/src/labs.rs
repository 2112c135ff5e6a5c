//! The labs the driver knows: every workspace package named `*-lab` that has a `lab` bench binary
//! (found with `cargo metadata`, [`crate::lab_packages`]), each described by that binary (`labkit::lab_binary`). The driver
//! links no lab: a new lab is a new crate and nothing else.

use std::sync::OnceLock;

use anyhow::{Result, anyhow, bail};
use labkit_measure::lab::{Describe, Description};

use crate::binaries::BenchBinaries;
use crate::lab_packages::LAB_BINARY;
use crate::shell::output;

/// A lab as the driver holds it: its description, read once per run.
pub type LabRef = &'static dyn Describe;

/// Every lab of this checkout, in package-name order, described by its own binary (built first,
/// with every other bench, when stale).
pub fn all() -> Result<&'static [LabRef]> {
    static LABS: OnceLock<Vec<LabRef>> = OnceLock::new();
    if let Some(labs) = LABS.get() {
        return Ok(labs);
    }
    let binaries = BenchBinaries::this_checkout()?;
    let labs = binaries
        .packages()
        .iter()
        .map(|package| describe(binaries, package))
        .collect::<Result<Vec<_>>>()?;
    Ok(LABS.get_or_init(|| labs))
}

/// What `package`'s `lab` binary says of the lab.
fn describe(binaries: &BenchBinaries, package: &str) -> Result<LabRef> {
    let mut cmd = binaries.command_in(package, LAB_BINARY)?;
    let json = output(cmd.arg("--describe"))?;
    let description = Description::parse(&json).map_err(|e| anyhow!("{package}: {e}"))?;
    if description.package != package {
        bail!(
            "the lab binary of package `{package}` describes package `{}`",
            description.package
        );
    }
    // Kept for the driver's whole run, like a linked lab's `static`.
    Ok(Box::leak(Box::new(description)))
}

/// The names of `labs`.
pub fn names(labs: &[LabRef]) -> Vec<&'static str> {
    labs.iter().map(|l| l.name()).collect()
}

/// The lab called `name`, or an error listing the valid ones.
pub fn find(name: &str) -> Result<LabRef> {
    find_in(all()?, name)
}

/// The lab of `labs` called `name` (the driver's tests pass fixture labs).
pub fn find_in(labs: &[LabRef], name: &str) -> Result<LabRef> {
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
    use labkit_measure::fixture::{OTHER, TINY};

    #[test]
    fn an_unknown_lab_is_refused_with_the_valid_ones() {
        let labs: &[LabRef] = &[&TINY, &OTHER];
        assert_eq!(find_in(labs, "other").unwrap().name(), "other");
        let err = find_in(labs, "ti").err().unwrap().to_string();
        assert!(
            err.contains("unknown lab `ti`; valid labs: tiny, other"),
            "{err}"
        );
    }
}

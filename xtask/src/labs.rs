//! The labs the driver knows: every workspace package named `*-lab` that has a `lab` bench binary
//! (found with `cargo metadata`), each described by that binary (`labkit::lab_binary`). The driver
//! links no lab: a new lab is a new crate and nothing else.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result, anyhow, bail};
use labkit_measure::lab::{Describe, Description};

use crate::binaries::{BenchBinaries, LAB_BINARY};
use crate::shell::{cargo, output, root};

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

/// The lab packages of the workspace at `workspace`: members named `*-lab` with a `lab` bench
/// target, in name order.
pub fn packages(workspace: &Path) -> Result<Vec<String>> {
    let json = output(
        cargo()
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .current_dir(workspace),
    )?;
    lab_packages(&json)
}

/// The lab packages in `cargo metadata` output.
fn lab_packages(metadata: &str) -> Result<Vec<String>> {
    let metadata: serde_json::Value =
        serde_json::from_str(metadata).context("unreadable cargo metadata")?;
    let mut names: Vec<String> = metadata["packages"]
        .as_array()
        .context("cargo metadata without packages")?
        .iter()
        .filter(|p| {
            p["targets"].as_array().is_some_and(|targets| {
                targets.iter().any(|t| {
                    t["name"] == LAB_BINARY
                        && t["kind"]
                            .as_array()
                            .is_some_and(|k| k.iter().any(|k| k == "bench"))
                })
            })
        })
        .filter_map(|p| p["name"].as_str())
        .filter(|name| name.ends_with("-lab"))
        .map(str::to_owned)
        .collect();
    names.sort();
    if names.is_empty() {
        bail!("the workspace has no lab: no `*-lab` package with a `{LAB_BINARY}` bench binary");
    }
    Ok(names)
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

/// The workspace this driver runs in: its lab packages are what [`all`] builds.
pub fn this_workspace() -> Result<Vec<String>> {
    packages(&root())
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

    #[test]
    fn labs_are_the_lab_packages_with_a_lab_binary() {
        let package =
            |name: &str, targets: &str| format!(r#"{{"name": "{name}", "targets": [{targets}]}}"#);
        let bench = |name: &str| format!(r#"{{"name": "{name}", "kind": ["bench"]}}"#);
        let metadata = format!(
            r#"{{"packages": [{}, {}, {}, {}]}}"#,
            package("zeta-lab", &bench("lab")),
            package("labkit", &bench("lab")),
            package("beta-lab", &format!("{}, {}", bench("time"), bench("lab"))),
            package("half-lab", &bench("time")),
        );
        assert_eq!(lab_packages(&metadata).unwrap(), ["beta-lab", "zeta-lab"]);
        let none = format!(
            r#"{{"packages": [{}]}}"#,
            package("half-lab", &bench("time"))
        );
        let err = lab_packages(&none).err().unwrap().to_string();
        assert!(err.contains("has no lab"), "{err}");
        assert!(lab_packages("{").is_err());
    }

    #[test]
    fn this_workspace_has_labs_and_no_other_package_is_one() {
        let packages = this_workspace().unwrap();
        assert!(!packages.is_empty());
        assert!(packages.iter().all(|p| p.ends_with("-lab")), "{packages:?}");
    }
}

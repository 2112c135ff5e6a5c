//! Which workspace packages are labs: the bottom of the driver, read by what builds the labs'
//! binaries and by what asks those binaries to describe their labs.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::shell::{cargo, output, root};

/// Every lab's bench binary that describes the lab, derives its records and renders its report
/// (`labkit::lab_binary`).
pub const LAB_BINARY: &str = "lab";

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

/// The workspace this driver runs in: its lab packages are what [`all`] builds.
pub fn this_workspace() -> Result<Vec<String>> {
    packages(&root())
}

#[cfg(test)]
mod tests {
    use super::*;

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

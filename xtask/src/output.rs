//! Writing result sets and reports: `<lab>.json`, `<lab>.md`, `<lab>-details.md` and
//! `charts/*.svg`, all atomically.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use labkit::document::{LabReport, details_file, render};
use labkit::record::{ResultSet, write_atomic};

use crate::process::root;

/// Where a run writes: the directory asked for, `bench-results/` for a full set measured from a
/// clean tree (or with `allow_dirty`), and `target/lab/results/` otherwise: a partial set, or one
/// measured from uncommitted changes, never lands over the committed results.
pub fn out_dir(asked: Option<&Path>, partial: bool, dirty: bool, allow_dirty: bool) -> PathBuf {
    match asked {
        Some(dir) => dir.to_path_buf(),
        None if partial => root().join("target/lab/results"),
        None if dirty && !allow_dirty => {
            println!(
                "==> the working tree has uncommitted changes: results go to target/lab/results/, \
                 not bench-results/ (commit first, or pass --allow-dirty to write bench-results/ \
                 with the revision marked -dirty)"
            );
            root().join("target/lab/results")
        }
        None => root().join("bench-results"),
    }
}

fn write(path: &Path, contents: &str) -> Result<()> {
    write_atomic(path, contents).with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `<lab>.json` and the report.
pub fn write_results(lab: &dyn LabReport, set: &ResultSet, dir: &Path) -> Result<()> {
    write(&dir.join(format!("{}.json", lab.name())), &set.to_json())?;
    write_report(lab, set, dir)
}

/// Writes `<lab>.md`, `<lab>-details.md` and their charts.
pub fn write_report(lab: &dyn LabReport, set: &ResultSet, dir: &Path) -> Result<()> {
    let rendered = render(lab, set).map_err(|e| anyhow!("{}: {e}", lab.name()))?;
    for chart in &rendered.charts {
        write(
            &dir.join("charts").join(format!("{}.svg", chart.stem)),
            &chart.svg,
        )?;
    }
    let md = dir.join(format!("{}.md", lab.name()));
    write(&md, &rendered.main)?;
    write(&dir.join(details_file(lab)), &rendered.details)?;
    println!(
        "==> wrote {} ({} KB), its details and {} charts",
        md.display(),
        rendered.main.len() / 1024,
        rendered.charts.len()
    );
    Ok(())
}

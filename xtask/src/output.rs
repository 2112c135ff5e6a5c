//! Writing result sets and reports: `<lab>.json`, `<lab>.md`, `<lab>-details.md` and
//! `charts/*.svg`, all atomically.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use labkit_measure::lab::Describe;
use labkit_measure::record::{ResultSet, RunMode, write_atomic};

use crate::binaries::BenchBinaries;
use crate::lab_packages::LAB_BINARY;
use crate::shell::{output, root, run};

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

/// Refuses a directory the results cannot be written to, before anything is measured: it is
/// created if missing, and a file is written into it and removed.
pub fn ensure_writable(dir: &Path) -> Result<()> {
    let refuse = |e: std::io::Error| anyhow!("cannot write results to {}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(refuse)?;
    let probe = dir.join(format!(".writable-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(refuse)?;
    std::fs::remove_file(&probe).map_err(refuse)
}

/// `path` made absolute: a lab's binary runs in its package's directory, so a path relative to
/// where `cargo xtask` was started would name another file there.
pub fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| path.display().to_string())
}

fn write(path: &Path, contents: &str) -> Result<()> {
    write_atomic(path, contents).with_context(|| format!("cannot write {}", path.display()))
}

/// The file `lab`'s result set is written to in `dir`.
pub fn results_file(lab: &dyn Describe, dir: &Path) -> PathBuf {
    dir.join(format!("{}.json", lab.name()))
}

/// What `lab`'s results in `dir` keep for a new run of `mode` to check its verdicts against
/// ([`ResultSet::as_previous`], [`labkit_measure::lab::kept_of_previous`]): the records the travel
/// table counts and every claimed case's, derived ones included (the lab's binary derives them as
/// it does for its report). None when there are none, or they are of another mode, or they do not
/// read (said on stderr; the run goes on).
pub fn previous_run(lab: &dyn Describe, dir: &Path, mode: RunMode) -> Option<ResultSet> {
    let path = results_file(lab, dir);
    if !path.exists() {
        return None;
    }
    match with_derived(lab, &path) {
        Ok(set) if set.mode == mode => {
            let claimed = lab.claimed_cases();
            // A run from before JMH timed the JVM designs with the lab's own harness: another
            // measurement, whose verdicts this one's cannot hold or not hold.
            let same_jvm_method =
                matches!(&set.environment.jvm, Some(Ok(run)) if !run.jmh.is_empty());
            let jvm = lab.jvm_designs();
            Some(set.as_previous(|r| {
                labkit_measure::lab::kept_of_previous(r, &claimed)
                    && (same_jvm_method || !jvm.contains(&r.id.implementation.as_str()))
            }))
        }
        Ok(_) => {
            eprintln!(
                "note: {} is not a {} run: no travel check against it",
                path.display(),
                mode.label()
            );
            None
        }
        Err(e) => {
            eprintln!(
                "note: {} does not read ({e}): no travel check against it",
                path.display()
            );
            None
        }
    }
}

/// Writes `<lab>.json`, as the results directory keeps it ([`ResultSet::compacted`]), and the
/// report, rendered from that file.
pub fn write_results(lab: &dyn Describe, set: &ResultSet, dir: &Path) -> Result<()> {
    write(&results_file(lab, dir), &set.compacted().to_json())?;
    write_report(lab, dir)
}

/// Writes `<lab>.md`, `<lab>-details.md` and their charts into `dir` from its `<lab>.json`:
/// the lab's own binary renders them (`labkit::lab_binary`), each file atomically.
pub fn write_report(lab: &dyn Describe, dir: &Path) -> Result<()> {
    let dir = absolute(dir)?;
    let mut cmd = BenchBinaries::this_checkout()?.command(lab, LAB_BINARY)?;
    run(cmd.arg("--render").arg(results_file(lab, &dir)).arg(&dir))
}

/// The result set in `path` with `lab`'s derived records added, as the lab's binary computes them.
pub fn with_derived(lab: &dyn Describe, path: &Path) -> Result<ResultSet> {
    let path = absolute(path)?;
    let mut cmd = BenchBinaries::this_checkout()?.command(lab, LAB_BINARY)?;
    let json = output(cmd.arg("--derive").arg(&path))?;
    ResultSet::from_json(&json).map_err(|e| anyhow!("{}: {e}", lab.name()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unwritable_directory_is_refused_with_its_path_and_a_new_one_is_made() {
        let err = super::ensure_writable(std::path::Path::new("/dev/null/x")).unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot write results to /dev/null/x"),
            "{err}"
        );
        let dir = std::env::temp_dir().join(format!("xtask-writable-{}", std::process::id()));
        super::ensure_writable(&dir.join("a/b")).unwrap();
        assert!(dir.join("a/b").is_dir());
        assert_eq!(
            std::fs::read_dir(dir.join("a/b")).unwrap().count(),
            0,
            "no probe is left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

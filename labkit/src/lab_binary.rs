//! The `main` of every lab's `lab` binary: how the driver reads a lab without linking it.
//!
//! `cargo xtask` builds each lab's benches and asks its `lab` binary for what it cannot compute
//! from records alone:
//!
//! - `--describe`: the lab's [`Description`](crate::lab::Description) as JSON on stdout (implementations, experiments with
//!   their parameters and kinds, timing per run mode, cost buckets);
//! - `--derive <set.json>`: the set with the lab's derived records added ([`Lab::derived`]), as
//!   JSON on stdout, for write-ups;
//! - `--render <set.json> <dir>`: the report, its details page and its charts, written
//!   atomically into `<dir>`.
//!
//! A bad command line or an unreadable set is one line on stderr and exit status 2; nothing is
//! half-written.

use std::path::Path;

use crate::args::exit_with_usage_error;
use crate::document::{LabReport, description, details_file, render, with_derived};
use crate::record::{ResultSet, write_atomic};

const USAGE: &str = "usage: lab --describe | --derive <set.json> | --render <set.json> <dir>";

/// Runs the command on the binary's command line (after the `--bench` cargo passes) for `lab`.
pub fn lab_main(lab: &'static dyn LabReport) {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = match words.as_slice() {
        ["--describe"] => {
            println!("{}", description(lab).to_json());
            Ok(())
        }
        ["--derive", set] => ResultSet::load(Path::new(set)).map(|set| {
            println!("{}", with_derived(lab, set).to_json());
        }),
        ["--render", set, dir] => {
            ResultSet::load(Path::new(set)).and_then(|set| write_report(lab, &set, Path::new(dir)))
        }
        _ => Err(USAGE.to_owned()),
    };
    if let Err(e) = outcome {
        exit_with_usage_error(&format!("{}: {e}", lab.name()));
    }
}

/// Writes `<lab>.md`, `<lab>-details.md` and their charts into `dir`, each file atomically and
/// only once the whole report has rendered.
pub fn write_report(lab: &dyn LabReport, set: &ResultSet, dir: &Path) -> Result<(), String> {
    let rendered = render(lab, set)?;
    let write = |path: &Path, contents: &str| {
        write_atomic(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;

    #[test]
    fn a_report_is_written_whole_into_its_directory() {
        let dir = std::env::temp_dir().join(format!("labkit-lab-binary-{}", std::process::id()));
        let set = crate::fixture::result_set(&TINY, Vec::new());
        write_report(&TINY, &set, &dir).unwrap();
        for file in ["tiny.md", "tiny-details.md"] {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            assert!(text.contains("tiny"), "{file}: {text}");
        }
        let derived = with_derived(&TINY, set.clone());
        assert_eq!(derived.records.len(), set.records.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

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
//!   atomically into `<dir>`;
//! - `--writeup <set.json> <out.md> <A> <B> [NAME...] [--paired <compare.json>]`: the write-up
//!   of B against A (the set's derived records added here), written atomically and printed;
//! - `--comparison <compare.json> <out.md> <A> <B>`: a paired comparison's page, written
//!   atomically and printed;
//! - `--rerun <first.json> <second.json>`: how the first run's verdicts fared in the second,
//!   printed.
//!
//! Every page is written here; the driver measures and renders nothing.
//!
//! A bad command line or an unreadable set is one line on stderr and exit status 2; nothing is
//! half-written.

use std::path::Path;

use crate::args::exit_with_usage_error;
use crate::document::{LabReport, description, details_file, render, with_derived};
use crate::pages::{comparison_page, rerun_page, writeup_page};
use crate::record::{ResultSet, write_atomic};

const USAGE: &str = "usage: lab --describe | --derive <set.json> | --render <set.json> <dir> \
    | --writeup <set.json> <out.md> <A> <B> [NAME...] [--paired <compare.json>] \
    | --comparison <compare.json> <out.md> <A> <B> | --rerun <first.json> <second.json>";

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
        ["--writeup", set, out, a, b, rest @ ..] => writeup(lab, set, out, (a, b), rest),
        ["--comparison", set, out, a, b] => ResultSet::load(Path::new(set))
            .and_then(|set| write_page(out, &comparison_page(&description(lab), &set, (a, b)))),
        ["--rerun", first, second] => ResultSet::load(Path::new(first)).and_then(|first| {
            let second = ResultSet::load(Path::new(second))?;
            println!("{}", rerun_page(&description(lab), &first, &second));
            Ok(())
        }),
        _ => Err(USAGE.to_owned()),
    };
    if let Err(e) = outcome {
        exit_with_usage_error(&format!("{}: {e}", lab.name()));
    }
}

/// The write-up of `b` against `a` in the set at `set` (its derived records added), on the cases
/// `rest` names, with the paired comparison `--paired <file>` at its end holds, into `out`.
fn writeup(
    lab: &dyn LabReport,
    set: &str,
    out: &str,
    (a, b): (&str, &str),
    rest: &[&str],
) -> Result<(), String> {
    let (names, paired) = match rest {
        [names @ .., "--paired", paired] => (names, Some(ResultSet::load(Path::new(paired))?)),
        names => (names, None),
    };
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let set = with_derived(lab, ResultSet::load(Path::new(set))?);
    // The description, not the lab: it carries the cases the lab's answers claim.
    let text = writeup_page(&description(lab), &set, (a, b), &names, paired.as_ref())?;
    write_page(out, &text)
}

/// Writes `text` into `out` atomically, then prints it and where it went.
fn write_page(out: &str, text: &str) -> Result<(), String> {
    write_atomic(Path::new(out), text).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!("{text}");
    println!("==> wrote {out}");
    Ok(())
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

//! Tests of the command line (`main.rs`).

use super::*;
use clap::CommandFactory;

pub(crate) fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
}

#[test]
fn the_command_line_is_well_formed() {
    Cli::command().debug_assert();
    let Ok(Cli {
        command: Command::Bench(args),
    }) = parse(&["bench", "--quick", "--out-dir=x", "tiny", "fast"])
    else {
        panic!("bench parses");
    };
    assert_eq!(args.mode.mode(), RunMode::Quick);
    assert_eq!(args.out_dir, Some(PathBuf::from("x")));
    assert_eq!(args.words, words(&["tiny", "fast"]));
    assert!(parse(&["bench", "--fast"]).is_err());
    assert!(parse(&["bench", "--quick", "--smoke"]).is_err());
    let err = parse(&["compare", "tiny"]).err().unwrap().to_string();
    assert!(err.contains("<A>"), "a missing argument is named: {err}");
    assert!(parse(&["gate", "check", "--limit", "-1"]).is_err());
    assert!(parse(&["alloc", "tiny", "fast"]).is_err());
}

#[test]
fn bench_words_pick_labs_and_are_checked_before_building() {
    use labkit_measure::fixture::{OTHER, TINY};
    let all: &[labs::LabRef] = &[&TINY, &OTHER];
    let chosen = |w: &[&str]| chosen_labs(all, &words(w));
    let (picked, filters) = chosen(&["tiny", "fast", "shared-4"]).unwrap();
    assert_eq!(picked.len(), 1);
    assert_eq!(filters, words(&["fast", "shared-4"]));
    assert_eq!(chosen(&[]).unwrap().0.len(), all.len());
    assert_eq!(
        chosen(&["small"]).unwrap().0.len(),
        2,
        "a name both labs know"
    );
    let (picked, _) = chosen(&["quick"]).unwrap();
    assert_eq!(picked[0].name(), "other");
    let err = chosen(&["tiny", "spin"]).err().unwrap().to_string();
    assert!(err.contains("`spin` in lab tiny"), "{err}");
    assert!(err.contains("implementations: base"), "{err}");
    assert!(!err.contains("quick"), "only the named lab's names: {err}");
    let err = chosen(&["no-such-case"]).err().unwrap().to_string();
    assert!(err.contains("name a lab first (tiny, other)"), "{err}");
}

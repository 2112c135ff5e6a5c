//! The tiny fixture lab and the description's tests.

use super::*;

/// A two-implementation lab whose runners take no time: for tests of everything that reads a
/// description.
pub struct TinyLab;

pub static TINY: TinyLab = TinyLab;

struct Idle;

impl Runner for Idle {
    fn run(&mut self, _: u64, ops: u64, window: &mut dyn Window) -> Duration {
        window.open();
        window.close();
        Duration::from_nanos(ops)
    }
}

impl Lab for TinyLab {
    fn name(&self) -> &'static str {
        "tiny"
    }
    fn package(&self) -> &'static str {
        "tiny-lab"
    }
    fn title(&self) -> &'static str {
        "tiny"
    }
    fn implementations(&self) -> Vec<&'static str> {
        vec!["base", "fast"]
    }
    fn experiments(&self) -> Vec<Experiment> {
        let shared = Parameter::threaded("shared-4", "4 threads", 4, 4);
        vec![
            Experiment::new(
                "op",
                "one op",
                Kind::Steady,
                vec![Parameter::new("small", "small", true), shared],
            ),
            Experiment::new(
                "cleanup",
                "one cleanup",
                Kind::OneShot,
                vec![Parameter::new("small", "small", true)],
            ),
            Experiment::new(
                "footprint",
                "heap",
                Kind::Retained,
                vec![Parameter::new("big", "big", false)],
            ),
        ]
    }
    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Box<dyn Runner>, String> {
        resolve(self, implementation, case)?;
        Ok(Box::new(Idle))
    }
    fn report(&self, _: &ResultSet) -> Document {
        use crate::document::{Block, ChartSpec, Page};
        use crate::report::Row;
        let rows = vec![Row::new("op", "small", "small")];
        Document {
            answers: None,
            main: Page::new("{{split}}").with("split", Block::CostSplit(rows.clone())),
            details: Page::new("{{time}}").with(
                "time",
                Block::Table(crate::record::Metric::NsPerOp, rows.clone()),
            ),
            charts: vec![ChartSpec::Metric {
                stem: "tiny".into(),
                title: "tiny".into(),
                metric: crate::record::Metric::NsPerOp,
                rows,
            }],
        }
    }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

#[test]
fn selection_filters_each_dimension_and_lists_valid_names_by_dimension() {
    let s = Selection::parse(&TINY, &words(&["fast", "small"])).unwrap();
    assert!(s.selects(&BenchId::new("op", "fast", "small")));
    assert!(s.selects(&BenchId::new("cleanup", "fast", "small")));
    assert!(!s.selects(&BenchId::new("op", "base", "small")));
    assert!(!s.selects(&BenchId::new("op", "base-again", "small")));
    let base = Selection::parse(&TINY, &words(&["base"])).unwrap();
    assert!(
        base.selects(&BenchId::new("op", "base-again", "small")),
        "the twin goes with its implementation"
    );
    assert_eq!(
        (twin("base"), twin_of("base-again"), twin_of("base")),
        ("base-again".to_owned(), Some("base"), None)
    );
    assert!(
        base.selects(&BenchId::new("op", "base-slowed-10", "small")),
        "a slowed twin goes with its implementation"
    );
    assert_eq!(
        (slowed_twin("base", 5), slowed_twin_of("base-slowed-5")),
        ("base-slowed-5".to_owned(), Some(("base", 5)))
    );
    assert_eq!(slowed_twin_of("base-slowed-x"), None);
    assert_eq!(measured_implementation("base-slowed-10"), "base");
    assert_eq!(measured_implementation("fast"), "fast");
    assert_eq!(
        reference_cells("base"),
        ["base-again", "base-slowed-5", "base-slowed-10"]
    );
    assert!(!s.selects(&BenchId::new("op", "fast", "shared-4")));
    assert!(Selection::parse(&TINY, &[]).unwrap().is_everything());
    let err = Selection::parse(&TINY, &words(&["fast", "spin"])).unwrap_err();
    assert!(err.contains("`spin` in lab tiny"), "{err}");
    assert!(err.contains("\n  implementations: base, fast\n"), "{err}");
    assert!(
        err.contains("\n  experiments: op, cleanup, footprint\n"),
        "{err}"
    );
    assert!(err.ends_with("parameters: small, shared-4, big"), "{err}");
}

#[test]
fn counts_and_ids_derive_from_the_description() {
    assert_eq!(
        timed_ids(&TINY).len(),
        3 * 5,
        "two timed experiments, three cases, two implementations, the A/A twin and two \
         slowed twins"
    );
    assert!(timed_ids(&TINY).contains(&BenchId::new("op", "base-slowed-5", "small")));
    assert!(timed_ids(&TINY).contains(&BenchId::new("op", "base-again", "small")));
    assert_eq!(
        counted_cases_of(&TINY),
        [
            BenchCase::new("op", "small"),
            BenchCase::new("cleanup", "small")
        ]
    );
    assert_eq!(counted_cases(&TINY, "fast").len(), 2);
    let e = experiment(&TINY, "cleanup").unwrap();
    assert_eq!(e.ops(1_000), 1);
    assert!(
        experiment(&TINY, "nope")
            .unwrap_err()
            .contains("valid: op, cleanup")
    );
    let err = resolve(&TINY, "base", &BenchCase::new("op", "big")).unwrap_err();
    assert!(err.contains("`big` is not a parameter of op"), "{err}");
    assert!(resolve(&TINY, "slow", &BenchCase::new("op", "small")).is_err());
}

#[test]
fn oversubscribed_parameters_say_so() {
    let e = experiment(&TINY, "op").unwrap();
    assert_eq!(e.parameters[0].label_on(2), "small");
    assert!(
        e.parameters[1]
            .label_on(2)
            .contains("oversubscribed: 4 threads on 2 cores")
    );
}

#[test]
fn cases_round_trip_and_reject_malformed_ids() {
    let case: BenchCase = "remove-all-up-to/50k-in-1".parse().unwrap();
    assert_eq!(case, BenchCase::new("remove-all-up-to", "50k-in-1"));
    assert_eq!(case.to_string(), "remove-all-up-to/50k-in-1");
    for bad in ["", "a", "a/", "/b", "a/b/c"] {
        assert!(bad.parse::<BenchCase>().is_err(), "{bad}");
    }
}

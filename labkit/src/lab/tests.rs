//! The description's tests, on the fixture lab.

use super::*;
use crate::record::{
    measured_implementation, reference_cells, slowed_twin, slowed_twin_of, twin, twin_of,
};
use crate::testing::fixture::TINY;

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

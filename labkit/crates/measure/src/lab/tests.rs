//! The description's tests, on the fixture lab.

use super::*;
use crate::fixture::{NARROW, TINY};
use crate::record::{Role, reference_roles};

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

#[test]
fn selection_filters_each_dimension_and_lists_valid_names_by_dimension() {
    let s = Selection::parse(&TINY, &words(&["fast", "small"])).unwrap();
    assert!(s.selects_implementation("fast") && !s.selects_implementation("base"));
    assert!(s.selects_case("op", "small") && s.selects_case("cleanup", "small"));
    assert!(!s.selects_case("op", "shared-4"));
    let fast = BenchId::new("op", "fast", "small");
    assert!(s.selects(&fast) && s.selects(&fast.with_role(Role::Twin)));
    assert!(!s.selects(&BenchId::new("op", "base", "small").with_role(Role::Twin)));
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
fn an_ids_role_is_a_suffix_only_on_the_wire() {
    let base = BenchId::new("op", "base", "small");
    let spelled = [
        (Role::Design, "op/base/small"),
        (Role::Twin, "op/base-again/small"),
        (Role::Slowed(10), "op/base-slowed-10/small"),
        (Role::RatioTo("fast".into()), "op/base-vs-fast/small"),
    ];
    for (role, text) in spelled {
        let id = base.with_role(role.clone());
        assert_eq!(id.to_string(), text);
        let read: BenchId = text.parse().unwrap();
        assert_eq!((read.implementation.as_str(), &read.role), ("base", &role));
        assert_eq!(read, id);
    }
    // A suffix that does not parse as a percentage is part of the name.
    let odd: BenchId = "op/base-slowed-x/small".parse().unwrap();
    assert_eq!(
        (odd.implementation.as_str(), odd.role),
        ("base-slowed-x", Role::Design)
    );
    assert_eq!(
        reference_roles(),
        [Role::Twin, Role::Slowed(5), Role::Slowed(10)]
    );
    // Ids sort by experiment, implementation part as spelled, parameter: result files keep
    // their order.
    let mut ids = [
        base.with_role(Role::Slowed(5)),
        BenchId::new("op", "base", "big"),
        base.with_role(Role::Twin),
        base.clone(),
    ];
    ids.sort();
    let texts: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    assert_eq!(
        texts,
        [
            "op/base/big",
            "op/base/small",
            "op/base-again/small",
            "op/base-slowed-5/small"
        ]
    );
}

#[test]
fn counts_and_ids_derive_from_the_description() {
    assert_eq!(
        timed_ids(&TINY).len(),
        3 * 5,
        "two timed experiments, three cases, two implementations, the A/A twin and two \
         slowed twins"
    );
    assert!(timed_ids(&TINY).contains(&BenchId::spelled("op", "base-slowed-5", "small")));
    assert!(timed_ids(&TINY).contains(&BenchId::spelled("op", "base-again", "small")));
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

#[test]
fn a_quick_run_given_no_names_measures_the_lab_s_quick_selection_only() {
    let given = words(&["fast"]);
    assert_eq!(run_words(&TINY, RunMode::Quick, &[]), words(&["small"]));
    assert_eq!(
        run_words(&TINY, RunMode::Quick, &given),
        given,
        "names given win"
    );
    assert!(run_words(&TINY, RunMode::Full, &[]).is_empty());
    assert!(run_words(&TINY, RunMode::Smoke, &[]).is_empty());
}

#[test]
fn an_experiment_that_measures_some_implementations_has_cells_of_those_only() {
    let lab = &NARROW;
    let op_cells: Vec<String> = timed_ids(lab)
        .into_iter()
        .filter(|id| id.experiment == "op")
        .map(|id| id.cell_name())
        .collect();
    assert!(
        op_cells.iter().all(|c| !c.starts_with("fast")),
        "{op_cells:?}"
    );
    assert_eq!(op_cells.len(), 2 * (1 + reference_roles().len()));
    assert!(
        counted_cases_of(lab).iter().all(|c| c.experiment != "op"),
        "not counted"
    );
    let err = resolve(lab, "fast", &BenchCase::new("op", "small")).unwrap_err();
    assert_eq!(
        err,
        "narrow: `fast` is not measured on op; it measures base"
    );
    assert!(resolve(lab, "fast", &BenchCase::new("cleanup", "small")).is_ok());
}

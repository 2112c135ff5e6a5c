//! Tests of [`super`].

use super::*;
use crate::fixture::{NARROW, TINY};

#[test]
fn the_fixture_lab_conforms() {
    every_case_opens_and_runs(&TINY, |_, _| true);
    registry_matches(&TINY, &["base", "fast"]);
    quick_selection_is_the_lab_s_own(&TINY);
    experiment_implementations_are_the_lab_s_own(&TINY);
    counted_cases_are_single_threaded(&TINY);
    // An implementation its experiment does not measure is refused, not opened.
    every_case_opens_and_runs(&NARROW, |_, _| true);
    experiment_implementations_are_the_lab_s_own(&NARROW);
    report_renders(&TINY);
    answers_name_the_description(&TINY);
}

#[test]
#[should_panic(expected = "counted on 2 threads")]
fn a_counted_case_on_two_threads_fails() {
    counted_cases_are_single_threaded(&crate::fixture::THREADED_COUNTED);
}

#[test]
#[should_panic(expected = "registry modules ↔ implementations")]
fn a_registry_module_named_unlike_its_implementation_fails() {
    registry_matches(&TINY, &["base", "quick"]);
}

#[test]
#[should_panic(expected = "one window per run")]
fn a_runner_that_never_opens_its_window_fails() {
    struct Unwindowed;
    impl crate::lab::Runner for Unwindowed {
        fn run(&mut self, _: u64, ops: u64, _: &mut dyn Window) -> std::time::Duration {
            std::time::Duration::from_nanos(ops)
        }
    }
    struct Careless;
    impl crate::lab::Describe for Careless {
        fn name(&self) -> &'static str {
            TINY.name()
        }
        fn package(&self) -> &'static str {
            TINY.package()
        }
        fn title(&self) -> &'static str {
            TINY.title()
        }
        fn implementations(&self) -> Vec<&'static str> {
            TINY.implementations()
        }
        fn experiments(&self) -> &[Experiment] {
            TINY.experiments()
        }
    }
    impl Lab for Careless {
        fn open(
            &self,
            implementation: &str,
            case: &BenchCase,
        ) -> Result<Box<dyn crate::lab::Runner>, String> {
            TINY.open(implementation, case)?;
            Ok(Box::new(Unwindowed))
        }
    }
    every_case_opens_and_runs(&Careless, |_, _| true);
}

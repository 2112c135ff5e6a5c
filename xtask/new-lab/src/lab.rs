//! __NAME__-lab's description (what the bench binaries and the driver run), its workload and its
//! report (`report/`: two page templates, the answers to the question, the targets).

use std::hint::black_box;
use std::time::{Duration, Instant};

use labkit::answers::Answers;
use labkit::document::{ChartSpec, Document, LabReport, Page, target_section};
use labkit::lab::{Experiment, Kind, Parameter, Runner, Typed, Window};
use labkit::record::{Metric, ResultSet};
use labkit::targets::Targets;

use crate::{Counter, ImplementationBuilder};

labkit::lab! {
    pub static LAB: __TYPE__ = "__NAME__", "__NAME__-lab: __QUESTION__";
    cases: Keys = experiments;
}

/// One add of a key the counter already holds.
const ADD: &str = "add";
/// The counters' sizes: the distinct keys they hold. The smallest is also counted by callgrind.
const SIZES: [u64; 2] = [1_000, 100_000];
/// Spreads consecutive numbers over the key space (an odd multiplier: distinct keys stay distinct).
const SCATTER: u64 = 0x9e37_79b9_7f4a_7c15;

/// A case's value: how many distinct keys the counter holds. It opens the case's runner for the
/// design the lab names (the registry's `ImplementationBuilder`).
#[derive(Clone, Copy)]
struct Keys(u64);

fn experiments() -> Vec<Typed<Keys>> {
    let add = Experiment::of(ADD, "one add of a key it holds", Kind::Steady);
    vec![add.on(SIZES.map(|keys| {
        let (name, label) = (format!("{keys}-keys"), format!("{keys} keys"));
        (Parameter::new(&name, &label, keys == SIZES[0]), Keys(keys))
    }))]
}

/// A counter holding `keys` keys that adds them again in a scattered order: its size, and so the
/// cost of an add, stays the same however many adds a run makes.
struct Adding<C> {
    counter: C,
    keys: u64,
    next: u64,
}

impl<C: Counter> Adding<C> {
    fn add(&mut self) -> u64 {
        let key = (self.next % self.keys).wrapping_mul(SCATTER);
        self.next += 1;
        self.counter.add(key)
    }
}

impl<C: Counter> Runner for Adding<C> {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        for _ in 0..warm_up {
            black_box(self.add());
        }
        window.open();
        let started = Instant::now();
        for _ in 0..ops {
            black_box(self.add());
        }
        let elapsed = started.elapsed();
        window.close();
        elapsed
    }
}

/// Opens a counter of the design it is built for, filled with the case's keys.
impl ImplementationBuilder for Keys {
    type Output = Box<dyn Runner>;

    fn build<C: Counter>(&mut self) -> Box<dyn Runner> {
        let mut adding = Adding {
            counter: C::default(),
            keys: self.0,
            next: 0,
        };
        for _ in 0..self.0 {
            adding.add();
        }
        Box::new(adding)
    }
}

labkit::report_files! {
    answers: Answers = "answers.json",
    target_specs: Targets = "targets.json",
}

impl LabReport for __TYPE__ {
    fn answers(&self) -> Option<Answers> {
        Some(answers())
    }

    fn report(&self, set: &ResultSet) -> Document {
        let rows = labkit::rows::select(&LAB, ADD, set.environment.cores);
        let title = "__NAME__: time per add (ns/op, median)";
        let rows = rows.expect("the lab's own rows");
        let chart = ChartSpec::bars("__NAME__-add-ns", title, Metric::NsPerOp, rows);
        let targets = target_section(self, "targets", set, &target_specs());
        Document {
            main: Page::new(include_str!("../report/report.md")),
            details: Page::new(include_str!("../report/details.md")),
            targets: vec![targets],
            charts: vec![chart],
            ..Document::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::{ImplementationVisitor, for_each_implementation};

    labkit::lab_conformance!(LAB, with_implementations, |_, _| true);

    /// Every design counts as a plain model does, over adds that come back to their keys.
    #[test]
    fn every_design_counts_as_the_model() {
        struct Check;
        impl ImplementationVisitor for Check {
            fn visit<C: Counter>(&mut self) {
                let (mut design, mut model) = (C::default(), BTreeMap::new());
                for i in 0..10_000_u64 {
                    let key = i * 7_919 % 613;
                    let expected = model.entry(key).and_modify(|n| *n += 1).or_insert(1);
                    assert_eq!(design.add(key), *expected, "{}", C::NAME);
                }
                for key in 0..700 {
                    let expected = model.get(&key).copied().unwrap_or(0);
                    assert_eq!(design.count(key), expected, "{}: key {key}", C::NAME);
                }
            }
        }
        for_each_implementation(&mut Check);
    }
}

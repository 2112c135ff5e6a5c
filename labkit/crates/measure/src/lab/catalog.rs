//! A lab's experiments, each parameter paired with the lab's own value for it (the workload a
//! runner opens), built once: a case named on the command line is looked up by name here, once,
//! and a lab's [`super::Lab::open`] then matches on its own type, not on strings.

use std::sync::OnceLock;

use super::{BenchCase, Describe, Experiment, Parameter, locate};

/// An experiment whose parameters each carry the lab's value `C` for that case.
#[derive(Debug, Clone)]
pub struct Typed<C> {
    experiment: Experiment,
    cases: Vec<C>,
}

impl Experiment {
    /// This experiment on `cases`: each a parameter and what the lab opens for it. The
    /// experiment's parameters become those of `cases`, in their order.
    pub fn on<C>(self, cases: impl IntoIterator<Item = (Parameter, C)>) -> Typed<C> {
        let (parameters, cases) = cases.into_iter().unzip();
        Typed {
            experiment: Experiment { parameters, ..self },
            cases,
        }
    }
}

/// An experiment whose cases carry nothing but their names (fixtures).
impl From<Experiment> for Typed<()> {
    fn from(experiment: Experiment) -> Self {
        let cases = vec![(); experiment.parameters.len()];
        Self { experiment, cases }
    }
}

struct Catalog<C> {
    experiments: Vec<Experiment>,
    cases: Vec<Vec<C>>,
}

/// A lab's experiments and their cases' values, built by `build` the first time they are asked
/// for and kept: every lookup reads the same description. Held in a `static` of the lab.
pub struct CaseTable<C: 'static> {
    build: fn() -> Vec<Typed<C>>,
    catalog: OnceLock<Catalog<C>>,
}

impl<C> CaseTable<C> {
    pub const fn new(build: fn() -> Vec<Typed<C>>) -> Self {
        Self {
            build,
            catalog: OnceLock::new(),
        }
    }

    fn catalog(&self) -> &Catalog<C> {
        self.catalog.get_or_init(|| {
            let (experiments, cases) = (self.build)()
                .into_iter()
                .map(|t| (t.experiment, t.cases))
                .unzip();
            Catalog { experiments, cases }
        })
    }

    /// Every experiment, in the order `build` gives them ([`Describe::experiments`]).
    pub fn experiments(&self) -> &[Experiment] {
        &self.catalog().experiments
    }

    /// The lab's value for `case`, after checking that `case` is one of `lab`'s (whose
    /// experiments these are) and that `implementation` is known: what [`super::Lab::open`]
    /// opens.
    pub fn case(
        &self,
        lab: &dyn Describe,
        implementation: &str,
        case: &BenchCase,
    ) -> Result<&C, String> {
        let catalog = self.catalog();
        let (e, p) = locate(lab, &catalog.experiments, implementation, case)?;
        Ok(&catalog.cases[e][p])
    }

    /// The lab's value for the case `experiment`/`parameter`, the one that case opens with: for
    /// what reads a case by its names (derived records, a test's filter), so no lab keeps a
    /// reverse map from names to its cases.
    pub fn value(&self, experiment: &str, parameter: &str) -> Option<&C> {
        let catalog = self.catalog();
        let e = catalog
            .experiments
            .iter()
            .position(|e| e.name == experiment)?;
        let p = catalog.experiments[e]
            .parameters
            .iter()
            .position(|p| p.name == parameter)?;
        Some(&catalog.cases[e][p])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;
    use crate::lab::Kind;

    static SIZES: CaseTable<u32> = CaseTable::new(|| {
        vec![Experiment::of("op", "one op", Kind::Steady).on([
            (Parameter::new("small", "small", false), 1),
            (Parameter::new("large", "large", false), 1_000),
        ])]
    });

    #[test]
    fn a_case_opens_as_the_value_its_parameter_was_described_with() {
        let names: Vec<&str> = SIZES.experiments()[0]
            .parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["small", "large"]);
        let case = |p: &str| SIZES.case(&TINY, "base", &BenchCase::new("op", p));
        assert_eq!(case("large"), Ok(&1_000));
        assert_eq!(case("small"), Ok(&1));
        let err = case("huge").unwrap_err();
        assert!(
            err.contains("`huge` is not a parameter of op; valid: small, large"),
            "{err}"
        );
        let err = SIZES
            .case(&TINY, "slow", &BenchCase::new("op", "small"))
            .unwrap_err();
        assert!(err.contains("unknown implementation `slow`"), "{err}");
        assert_eq!(SIZES.value("op", "large"), Some(&1_000));
        assert_eq!(SIZES.value("op", "huge"), None);
        assert_eq!(SIZES.value("other", "large"), None);
    }
}

//! Derived records a lab declares rather than writes ([`Derivation`]): a measured cell's value,
//! less another cell's or over another cell's (or over a number its case states), scaled, as a
//! record of a new experiment with the measured one's parameters. The same list says where each
//! derived experiment comes from ([`source_of`]), so a lab keeps no second map of it.

use crate::record::{BenchId, Metric, Record, ResultSet};

/// What a derived value is reduced by or divided by, found for each measured record it derives
/// from; where it is missing, nothing is derived for that record.
#[derive(Clone, Copy)]
pub enum Operand {
    /// Another design's own record (not a twin's) of the same experiment, parameter and metric
    /// (a ceiling, the harness floor). The design itself is not derived against itself.
    Design(&'static str),
    /// The same cell (an A/A twin's is its twin's) in another experiment, same parameter and
    /// metric: the reference case, or the same design under another load generator.
    Experiment(&'static str),
    /// Another metric of the same cell (a time over the count of what it timed).
    Metric(Metric),
    /// A number the case states (entries, producers kept, body bytes), read from its id; `None`
    /// or 0 derives nothing.
    Case(fn(&BenchId) -> Option<f64>),
}

enum Found<'a> {
    Record(&'a Record),
    Number(f64),
}

/// One derived experiment: `((value − minus) / over) × times` of every record of `metric` in
/// the measured experiment `from`, as `to`'s metric (the same by default).
///
/// A ratio to another cell's record is taken pass by pass when both have as many passes (cells
/// measured side by side in each pass: [`Record::combined`]). A difference is of the two
/// published values, so a page that prints both and their difference agrees with itself.
#[derive(Clone)]
pub struct Derivation {
    pub name: String,
    pub from: &'static str,
    pub metric: Metric,
    pub to: Metric,
    pub minus: Option<Operand>,
    pub over: Option<Operand>,
    pub times: f64,
    /// Which of the measured records are derived (an open loop's, not a closed one's).
    pub only: Option<fn(&BenchId) -> bool>,
}

impl Derivation {
    pub fn new(name: impl Into<String>, from: &'static str, metric: Metric) -> Self {
        Self {
            name: name.into(),
            from,
            metric,
            to: metric,
            minus: None,
            over: None,
            times: 1.0,
            only: None,
        }
    }

    pub fn minus(self, operand: Operand) -> Self {
        Self {
            minus: Some(operand),
            ..self
        }
    }

    pub fn over(self, operand: Operand) -> Self {
        Self {
            over: Some(operand),
            ..self
        }
    }

    pub fn times(self, factor: f64) -> Self {
        Self {
            times: factor,
            ..self
        }
    }

    pub fn to(self, metric: Metric) -> Self {
        Self { to: metric, ..self }
    }

    pub fn only(self, cells: fn(&BenchId) -> bool) -> Self {
        Self {
            only: Some(cells),
            ..self
        }
    }

    fn derives(&self, r: &Record) -> bool {
        let reference =
            |o: Option<Operand>| matches!(o, Some(Operand::Design(d)) if r.id.implementation == d);
        r.id.experiment == self.from
            && r.metric == self.metric
            && !reference(self.minus)
            && !reference(self.over)
            && self.only.is_none_or(|only| only(&r.id))
    }

    fn find<'a>(&self, set: &'a ResultSet, r: &Record, operand: Operand) -> Option<Found<'a>> {
        let id = &r.id;
        let (cell, metric) = match operand {
            Operand::Design(design) => (
                BenchId::new(&id.experiment, design, &id.parameter),
                r.metric,
            ),
            Operand::Experiment(experiment) => (id.with_case(experiment, &id.parameter), r.metric),
            Operand::Metric(metric) => (id.clone(), metric),
            Operand::Case(number) => {
                return number(id).filter(|n| *n != 0.0).map(Found::Number);
            }
        };
        set.find(&cell, metric).map(Found::Record)
    }

    /// The derived record of the measured `r` in `set`, if its operands are there.
    fn derive(&self, set: &ResultSet, r: &Record) -> Option<Record> {
        let id = r.id.with_case(&self.name, &r.id.parameter);
        let value = match self.minus.map(|o| self.find(set, r, o)) {
            None => r.value,
            Some(Some(Found::Record(other))) => r.value - other.value,
            Some(Some(Found::Number(n))) => r.value - n,
            Some(None) => return None,
        };
        let times = self.times;
        let record = match self.over.map(|o| self.find(set, r, o)) {
            Some(Some(Found::Record(other))) if self.minus.is_none() => {
                r.combined(other, id, self.to, |a, b| a / b * times)?
            }
            Some(Some(Found::Record(other))) => {
                Record::new(id, self.to, value / other.value * times)
            }
            Some(Some(Found::Number(n))) => Record::new(id, self.to, value / n * times),
            Some(None) => return None,
            None => Record::new(id, self.to, value * times),
        };
        record.value.is_finite().then_some(record)
    }
}

/// Every record `derivations` derive from `set`'s measured ones, in the order of the list.
pub fn derive_all(derivations: &[Derivation], set: &ResultSet) -> Vec<Record> {
    derivations
        .iter()
        .flat_map(|d| {
            let measured = set.records.iter().filter(|r| d.derives(r));
            measured
                .filter_map(|r| d.derive(set, r))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The records `declared` derive from `set`, then `custom`'s (what a list cannot state), which
/// reads `set` with the declared ones added.
pub fn derived(
    set: &ResultSet,
    declared: &[Derivation],
    custom: Option<fn(&ResultSet) -> Vec<Record>>,
) -> Vec<Record> {
    let mut out = derive_all(declared, set);
    if let Some(custom) = custom {
        let mut with_declared = set.clone();
        with_declared.records.extend(out.iter().cloned());
        out.extend(custom(&with_declared));
    }
    out
}

/// The measured experiment the derived experiment `name` comes from, if one of `derivations`
/// derives it.
pub fn source_of(derivations: &[Derivation], name: &str) -> Option<&'static str> {
    derivations.iter().find(|d| d.name == name).map(|d| d.from)
}

#[cfg(test)]
mod tests;

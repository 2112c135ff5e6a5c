//! The rows a page template names for a table (`{{ table('ns-per-op', 'admission:threaded') }}`),
//! read from the lab's description so a lab declares no row lists in Rust.
//!
//! A selector is one or more terms joined by `+`, each `EXPERIMENT` (every parameter),
//! `EXPERIMENT:threaded` (parameters running more than one thread), `EXPERIMENT:counted` (those
//! callgrind counts), `EXPERIMENT:PREFIX*` (parameters named from PREFIX on),
//! `EXPERIMENT:PARAMETER` (that one) or
//! `DERIVED@EXPERIMENT` (EXPERIMENT's parameters as the rows of the records a lab derives under
//! the name DERIVED). Rows of more than one experiment are labelled `EXPERIMENT · …`, since two
//! experiments may name their parameters alike. `*` stands for every experiment.

use crate::lab::{Describe, Experiment, Parameter, experiment};
use crate::report::Row;

/// The rows `selector` names in `lab`'s description, labelled for a machine of `cores`.
pub fn select(lab: &dyn Describe, selector: &str, cores: usize) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for term in selector.split('+').map(str::trim) {
        let (derived, rest) = match term.split_once('@') {
            Some((derived, experiment)) => (Some(derived), experiment),
            None => (None, term),
        };
        let (name, filter) = rest.split_once(':').unwrap_or((rest, ""));
        if name == EVERY {
            for e in lab.experiments() {
                rows.extend(term_rows(e, filter, derived, cores));
            }
            continue;
        }
        let e = experiment(lab, name)?;
        let selected = term_rows(e, filter, derived, cores);
        if selected.is_empty() {
            return Err(format!(
                "`{term}`: no parameter of `{name}` is selected (a row filter is `threaded`, \
                 `counted`, `PREFIX*` or a parameter's name)"
            ));
        }
        rows.extend(selected);
    }
    let first = rows.first().map(|r| r.experiment.clone());
    if rows.iter().any(|r| Some(&r.experiment) != first.as_ref()) {
        for row in &mut rows {
            row.label = format!("{} · {}", row.experiment, row.label);
        }
    }
    Ok(rows)
}

/// The experiment name that stands for every experiment of the lab: a table of it shows the rows
/// that measured its metric ([`selects_every`]).
pub const EVERY: &str = "*";

/// Whether `selector` names every experiment, so that its table leaves out the rows nothing
/// measured.
pub fn selects_every(selector: &str) -> bool {
    selector
        .split('+')
        .any(|term| term.trim().split(':').next() == Some(EVERY))
}

/// `e`'s parameters that `filter` keeps, as rows (of the records derived under `derived`).
fn term_rows(e: &Experiment, filter: &str, derived: Option<&str>, cores: usize) -> Vec<Row> {
    let keep = |p: &Parameter| match filter {
        "" => true,
        "threaded" => p.threads > 1,
        "counted" => p.counted,
        other => match other.strip_suffix('*') {
            Some(prefix) => p.name.starts_with(prefix),
            None => p.name == other,
        },
    };
    e.parameters
        .iter()
        .filter(|p| keep(p))
        .map(|p| Row::of(e, p, cores))
        .map(|row| match derived {
            Some(derived) => Row {
                experiment: derived.to_owned(),
                ..row
            },
            None => row,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;

    #[test]
    fn selectors_name_rows_from_the_description() {
        let names = |selector: &str| -> Vec<String> {
            select(&TINY, selector, 2)
                .unwrap()
                .iter()
                .map(|r| format!("{}/{}", r.experiment, r.parameter))
                .collect()
        };
        let all = names("op");
        assert!(!all.is_empty());
        assert!(all.iter().all(|n| n.starts_with("op/")), "{all:?}");
        let derived = names("per-entry@op");
        assert_eq!(derived.len(), all.len());
        assert!(derived.iter().all(|n| n.starts_with("per-entry/")));
        let both = names("op + per-entry@op");
        assert_eq!(both.len(), 2 * all.len());
        let labels = |selector: &str| -> Vec<String> {
            let rows = select(&TINY, selector, 2).unwrap();
            rows.into_iter().map(|r| r.label).collect()
        };
        assert!(labels("op").iter().all(|l| !l.contains(" · ")));
        assert!(
            labels("op + per-entry@op")
                .iter()
                .all(|l| l.starts_with("op · ") || l.starts_with("per-entry · ")),
            "two experiments' rows say which is which"
        );
        let first = &all[0]["op/".len()..];
        assert_eq!(names(&format!("op:{first}*")).first(), Some(&all[0]));
        assert_eq!(names(&format!("op:{first}")), [all[0].clone()]);
        assert!(
            select(&TINY, "op:fast", 2)
                .unwrap_err()
                .contains("a row filter")
        );
        assert!(select(&TINY, "absent", 2).is_err());
        assert_eq!(
            names("*"),
            names(&{
                let experiments = TINY.experiments();
                experiments
                    .iter()
                    .map(|e| e.name)
                    .collect::<Vec<_>>()
                    .join(" + ")
            })
        );
        assert!(selects_every("op + *:counted") && !selects_every("op:s*"));
    }
}

//! What a wall-time pass prints when a person runs it (`cargo bench -p LAB [-- FILTER]`, no
//! `--out`): one table of time per operation, each design beside its baseline, instead of the
//! records the driver reads.

use crate::lab::{Describe, baselines, cases};
use crate::record::{BenchId, Metric, Record, Role};
use crate::table::{Align, Table, format_number};

/// The pass's time per operation, one row per case and design in the lab's order, with the ratio
/// to the design's baseline in the same pass.
pub fn time_table(lab: &dyn Describe, records: &[Record]) -> Table {
    let baselines = baselines(lab);
    let find = |id: &BenchId| {
        records
            .iter()
            .find(|r| &r.id == id && r.metric == Metric::NsPerOp)
    };
    let mut table = Table::new()
        .column("Case", Align::Left)
        .column("Design", Align::Left)
        .column("ns/op", Align::Right)
        .column("× its baseline", Align::Right);
    for case in cases(lab, |e, _| e.is_timed()) {
        for implementation in lab.implementations() {
            let Some(r) = find(&case.id(implementation)) else {
                continue;
            };
            let base = find(&case.id(baselines.of(implementation)));
            let ratio = base
                .filter(|b| b.value > 0.0)
                .map_or("—".to_owned(), |b| format!("{:.2}×", r.value / b.value));
            table.row(vec![
                format!("`{case}`"),
                format!("`{implementation}`"),
                format_number(r.value),
                ratio,
            ]);
        }
    }
    table
}

/// The lines printed above the table: what it is and what it is not.
pub fn heading(lab: &dyn Describe, records: &[Record], smoke: bool) -> String {
    let twins = records.iter().any(|r| r.id.role == Role::Twin);
    let pass = if smoke {
        "one smoke pass (a pipeline check: its numbers mean nothing)"
    } else {
        "one quick wall-time pass on this machine"
    };
    format!(
        "{}: {pass} (median of its samples{}). One pass decides nothing: `cargo xtask bench {}` \
         runs the passes, counts and checks a verdict needs.\n",
        lab.title(),
        if twins {
            ", the baseline's A/A twin measured but not shown"
        } else {
            ""
        },
        lab.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;

    #[test]
    fn each_design_is_printed_beside_its_baseline() {
        let record = |implementation: &str, value: f64| {
            Record::new(
                BenchId::new("op", implementation, "small"),
                Metric::NsPerOp,
                value,
            )
        };
        let records = [record("base", 20.0), record("fast", 5.0)];
        let table = time_table(&TINY, &records).render();
        assert!(
            table.contains("| `op/small` | `base` | 20.0 | 1.00× |"),
            "{table}"
        );
        assert!(
            table.contains("| `op/small` | `fast` | 5.00 | 0.25× |"),
            "{table}"
        );
        assert!(heading(&TINY, &records, false).contains("quick wall-time pass"));
        assert!(heading(&TINY, &records, true).contains("mean nothing"));
    }
}

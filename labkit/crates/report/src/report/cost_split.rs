//! Where each implementation's counted instructions go, per row ([`crate::callgrind`]'s buckets).

use crate::record::{BenchId, Metric, ResultSet};
use crate::report::Row;
use crate::table::{Align, Table, format_number};

/// Per row and implementation: instructions per op in total and in each cost bucket, with its
/// share of the total.
pub fn cost_split_table(set: &ResultSet, rows: &[Row], implementations: &[&str]) -> Table {
    let mut buckets: Vec<Metric> = Vec::new();
    for r in &set.records {
        if matches!(r.metric, Metric::InstructionsIn(_)) && !buckets.contains(&r.metric) {
            buckets.push(r.metric);
        }
    }
    let mut table = Table::new()
        .column("Case", Align::Left)
        .column("Design", Align::Left)
        .column("instructions/op", Align::Right);
    for b in &buckets {
        let Metric::InstructionsIn(name) = b else {
            continue;
        };
        table = table.column(name.as_str(), Align::Right);
    }
    for row in rows {
        for implementation in implementations {
            let id = BenchId::new(&row.experiment, implementation, &row.parameter);
            let Some(total) = set.find(&id, Metric::InstructionsPerOp) else {
                continue;
            };
            let mut cells = vec![
                format!("`{}` · `{}`", row.experiment, row.parameter),
                format!("`{implementation}`"),
                format_number(total.value),
            ];
            for b in &buckets {
                cells.push(set.find(&id, *b).map_or("—".into(), |r| {
                    let share = if total.value > 0.0 {
                        100.0 * r.value / total.value
                    } else {
                        0.0
                    };
                    format!("{} ({share:.0} %)", format_number(r.value))
                }));
            }
            table.row(cells);
        }
    }
    table
}

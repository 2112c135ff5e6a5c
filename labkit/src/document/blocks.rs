//! What a page's blocks and template functions print, against one report's run and
//! declaration.

use super::{Block, ChartSpec};
use crate::lab::Describe;
use crate::record::{Metric, ResultSet};
use crate::report::{Row, comparison_table, latency_table};
use crate::targets::TargetSection;
use crate::template;

/// What every block of one report is rendered against.
pub(super) struct Blocks<'a> {
    pub(super) set: &'a ResultSet,
    pub(super) implementations: &'a [&'a str],
    pub(super) baselines: &'a crate::record::Baselines,
    pub(super) settings: &'a [(&'static str, String)],
    pub(super) targets: &'a [TargetSection],
    pub(super) charts: &'a [ChartSpec],
}

impl Blocks<'_> {
    pub(super) fn markdown(&self, block: &Block) -> String {
        block_markdown(self, block)
    }

    /// What a function a page template calls prints: a block it places ([`template::FUNCTIONS`],
    /// rows as [`crate::rows::select`] reads them) or a measured value.
    pub(super) fn called(
        &self,
        lab: &dyn Describe,
        cores: usize,
        call: &template::Call,
    ) -> Result<String, String> {
        let rows = |at: usize| crate::rows::select(lab, &call.args[at], cores);
        let block = match call.function {
            "table" => {
                let metric = Metric::from_key(&call.args[0])?;
                let mut rows = rows(1)?;
                if crate::rows::selects_every(&call.args[1]) {
                    rows.retain(|row| {
                        self.set.records.iter().any(|r| {
                            r.metric == metric
                                && r.id.experiment == row.experiment
                                && r.id.parameter == row.parameter
                        })
                    });
                }
                Block::Table(metric, rows)
            }
            "paired" => Block::Table(
                Metric::from_key(&call.args[0])?,
                paired(call, rows(1)?, rows(2)?)?,
            ),
            "values" => {
                let metric = Metric::from_key(&call.args[0])?;
                let table =
                    crate::report::values_table(self.set, metric, &rows(1)?, self.implementations);
                return Ok(table.render());
            }
            "not_faster" => {
                let rivals: Vec<&str> = call.args[1].split_whitespace().collect();
                return Ok(crate::report::not_faster(
                    lab,
                    self.set,
                    &call.args[0],
                    &rivals,
                ));
            }
            "cost_split" => Block::CostSplit(rows(0)?),
            "latencies" => Block::Latencies {
                operation: call.args[0].clone(),
                rows: rows(1)?,
            },
            "targets" | "target_misses" | "targets_source" | "targets_notes" => {
                let name = &call.args[0];
                let section = self
                    .targets
                    .iter()
                    .find(|t| t.name == name)
                    .ok_or_else(|| format!("no targets named `{name}`"))?;
                return Ok(match call.function {
                    "targets" => section.table(),
                    "target_misses" => section.misses(),
                    "targets_source" => section.spec.source.clone(),
                    _ => self.markdown(&Block::Measured(section.notes.clone())),
                });
            }
            "lines_table" => {
                let stem = &call.args[0];
                let lines = self
                    .charts
                    .iter()
                    .find_map(|c| match c {
                        ChartSpec::Lines(lines) if lines.stem == *stem => Some(lines),
                        _ => None,
                    })
                    .ok_or_else(|| format!("no lines chart `{stem}`"))?;
                return Ok(
                    crate::report::lines_table(self.set, lines, self.implementations).render(),
                );
            }
            "description" => {
                return Ok(crate::lab::experiment(lab, &call.args[0])?
                    .description
                    .clone());
            }
            _ => return Ok(crate::answers::measured_value(self.set, call)),
        };
        Ok(self.markdown(&block))
    }
}

/// A paired table's rows ([`template::FUNCTIONS`]): each of `a` above its match in `b`,
/// labelled with its source.
fn paired(call: &template::Call, a: Vec<Row>, b: Vec<Row>) -> Result<Vec<Row>, String> {
    if a.len() != b.len() {
        return Err(format!(
            "`{}` and `{}` select {} and {} rows: a paired table needs as many of each",
            call.args[1],
            call.args[2],
            a.len(),
            b.len()
        ));
    }
    let by = |row: &Row, source: &str| Row {
        label: format!("{} — {source}", row.label),
        ..row.clone()
    };
    let rows = a
        .iter()
        .zip(&b)
        .flat_map(|(a, b)| [by(a, &call.args[3]), by(b, &call.args[4])]);
    Ok(rows.collect())
}

fn block_markdown(blocks: &Blocks, block: &Block) -> String {
    let Blocks {
        set,
        implementations,
        baselines,
        settings,
        ..
    } = *blocks;
    match block {
        Block::Table(metric, rows) => {
            comparison_table(set, *metric, rows, implementations, baselines).render()
        }
        Block::Latencies { operation, rows } => {
            let tables: String = rows
                .iter()
                .map(|row| {
                    format!(
                        "Latency of one {operation} · {}\n\n{}\n",
                        row.label,
                        latency_table(set, row, implementations).render()
                    )
                })
                .collect();
            let timer = crate::report::timer_overhead_ns(set).map_or_else(
                || "not measured in this run".to_owned(),
                crate::report::format_duration,
            );
            format!(
                "{tables}Every recorded latency includes the timer's own cost: {timer} (two clock \
                 reads and a histogram update, the median of an empty operation timed the same \
                 way in the pass).\n"
            )
        }
        Block::CostSplit(rows) => {
            crate::report::cost_split_table(set, rows, implementations).render()
        }
        Block::Markdown(text) => text.clone(),
        Block::Measured(text) => crate::answers::fill_measured(text, set, settings),
    }
}

//! Where a run's wall-time stage went, case by case ([`Metric::CaseSeconds`]): what a reviewer
//! reads to see which scenarios a run's length comes from.

use crate::record::{Metric, ResultSet};
use crate::table::{Align, Table, format_count};

/// The section listing every case's seconds over all its passes, longest first, with its share
/// of the wall-time stage; `None` when the run recorded no case times.
pub fn case_time_section(set: &ResultSet) -> Option<String> {
    let cases = case_seconds(set);
    if cases.is_empty() {
        return None;
    }
    let summed: f64 = cases.iter().map(|(_, s)| s).sum();
    // The stage's own clock also counts starting and linking the passes' processes.
    let stage = set
        .timing
        .and_then(|t| t.stage_seconds)
        .map_or(summed, |s| s.wall_time);
    let seconds = |s: f64| format!("{} s", format_count(s.round() as u64));
    let share = |s: f64| format!("{:.1} %", 100.0 * s / stage.max(f64::MIN_POSITIVE));
    let mut table = Table::new()
        .column("Case", Align::Left)
        .column("seconds, all passes", Align::Right)
        .column("share of the wall-time stage", Align::Right);
    for (case, s) in &cases {
        table.row(vec![format!("`{case}`"), seconds(*s), share(*s)]);
    }
    table.row(vec!["all cases".into(), seconds(summed), share(summed)]);
    Some(format!(
        "## Where the wall-time stage went\n\nEach case's wall-clock time in the passes that ran \
         it (opening, calibrating and sampling all its cells; repeated and added passes \
         included), of the stage's {}; the rest is starting and linking the passes' \
         processes.\n\n{}",
        seconds(stage),
        table.render()
    ))
}

/// Every case's seconds over all its passes (`experiment/parameter`), longest first.
pub fn case_seconds(set: &ResultSet) -> Vec<(String, f64)> {
    let mut cases: Vec<(String, f64)> = set
        .records
        .iter()
        .filter(|r| r.metric == Metric::CaseSeconds)
        .map(|r| {
            (
                format!("{}/{}", r.id.implementation, r.id.parameter),
                r.value,
            )
        })
        .collect();
    cases.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    cases
}

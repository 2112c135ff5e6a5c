//! The timed rows on which a design is not faster than the best of its rivals: what a claim that
//! it is faster everywhere has to answer for.

use crate::compare::{Verdict, compare_in};
use crate::lab::{Describe, cases};
use crate::record::{Metric, ResultSet};
use crate::report::format_duration;
use crate::table::format_change;

/// A markdown list of the timed rows where `design` is not faster than the fastest of `rivals`
/// measured there (its time per op, the rival's, the change and the verdict), or a line saying
/// there are none.
pub fn not_faster(lab: &dyn Describe, set: &ResultSet, design: &str, rivals: &[&str]) -> String {
    let mut out = String::new();
    for case in cases(lab, |e, _| e.is_timed()) {
        let get = |i: &str| set.find(&case.id(i), Metric::NsPerOp);
        let best = rivals
            .iter()
            .filter_map(|r| get(r))
            .min_by(|a, b| a.value.total_cmp(&b.value));
        let (Some(best), Some(mine)) = (best, get(design)) else {
            continue;
        };
        let c = compare_in(set, best, mine);
        if c.verdict != Verdict::Better {
            out.push_str(&format!(
                "- `{case}`: {} vs {} ({}, {})\n",
                format_duration(mine.value),
                format_duration(best.value),
                format_change(c.change_percent),
                c.verdict.word()
            ));
        }
    }
    if out.is_empty() {
        let rivals: Vec<String> = rivals.iter().map(|r| format!("`{r}`")).collect();
        out = format!(
            "none: `{design}` is faster than the faster of {} on every timed row.\n",
            rivals.join(" and ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;
    use crate::record::fixtures::passes;

    #[test]
    fn the_rows_a_design_does_not_win_are_listed_with_their_verdict() {
        let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
        let half: Vec<f64> = up.iter().map(|v| v / 2.0).collect();
        let set = crate::record::fixtures::set(vec![passes("base", &up), passes("fast", &half)]);
        assert_eq!(
            not_faster(&TINY, &set, "fast", &["base"]),
            "none: `fast` is faster than the faster of `base` on every timed row.\n"
        );
        let listed = not_faster(&TINY, &set, "base", &["fast"]);
        assert_eq!(
            listed,
            "- `op/small`: 13.5 ns vs 6.75 ns (+100.0 %, slower)\n"
        );
    }
}

//! Turns the raw output of criterion and gungraun into lab records.

use std::path::{Path, PathBuf};

use labkit::record::{BenchId, Interval, Metric, Record};
use serde::Deserialize;

#[derive(Deserialize)]
struct CriterionBenchmark {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    throughput: Option<CriterionThroughput>,
}

#[derive(Deserialize)]
enum CriterionThroughput {
    Elements(u64),
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct CriterionEstimate {
    point_estimate: f64,
    confidence_interval: CriterionInterval,
}

#[derive(Deserialize)]
struct CriterionInterval {
    confidence_level: f64,
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Deserialize)]
struct CriterionEstimates {
    median: CriterionEstimate,
}

/// Records from one criterion benchmark directory (`.../new/` holding `benchmark.json` and
/// `estimates.json`): the median ns per iteration with its confidence interval, and aggregate
/// ops/s when the bench declared element throughput (threads per iteration).
pub fn criterion_records(new_dir: &Path) -> Result<Vec<Record>, String> {
    let read = |name: &str| {
        let path = new_dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let bench: CriterionBenchmark = serde_json::from_str(&read("benchmark.json")?)
        .map_err(|e| format!("{}: {e}", new_dir.display()))?;
    let estimates: CriterionEstimates = serde_json::from_str(&read("estimates.json")?)
        .map_err(|e| format!("{}: {e}", new_dir.display()))?;
    let (Some(implementation), Some(parameter)) = (bench.function_id, bench.value_str) else {
        return Err(format!(
            "{}: criterion id is not <experiment>/<implementation>/<parameter>",
            new_dir.display()
        ));
    };
    let id = BenchId::new(&bench.group_id, &implementation, &parameter);
    let median = estimates.median;
    let ci = &median.confidence_interval;
    let mut records = vec![
        Record::new(id.clone(), Metric::NsPerOp, median.point_estimate).with_interval(Interval {
            lower: ci.lower_bound,
            upper: ci.upper_bound,
            confidence: ci.confidence_level,
        }),
    ];
    if let Some(CriterionThroughput::Elements(elements)) = bench.throughput {
        let ops = |ns: f64| elements as f64 * 1e9 / ns;
        records.push(
            Record::new(id, Metric::OpsPerSec, ops(median.point_estimate)).with_interval(
                Interval {
                    lower: ops(ci.upper_bound),
                    upper: ops(ci.lower_bound),
                    confidence: ci.confidence_level,
                },
            ),
        );
    }
    Ok(records)
}

/// Every file called `name` below `root`, in a stable order.
fn files_named(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == name) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Every criterion result below `home` (a `CRITERION_HOME`): the `new/` directories, which hold
/// the latest run (`base/` and named baselines are earlier ones).
pub fn criterion_tree(home: &Path) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    for estimates in files_named(home, "estimates.json") {
        let dir = estimates.parent().expect("a file has a parent");
        if dir.file_name().is_some_and(|n| n == "new") {
            records.extend(criterion_records(dir)?);
        }
    }
    Ok(records)
}

/// One gungraun benchmark's result: its group, function, bench id and instruction count.
#[derive(Debug, PartialEq)]
pub struct GungraunSummary {
    pub group: String,
    pub function: String,
    pub id: String,
    pub instructions: u64,
}

/// The instruction count (`Ir`) of a gungraun 0.20 `summary.json`.
pub fn gungraun_instructions(summary_json: &str) -> Result<GungraunSummary, String> {
    let summary: serde_json::Value =
        serde_json::from_str(summary_json).map_err(|e| format!("not JSON: {e}"))?;
    let text = |pointer: &str| {
        summary
            .pointer(pointer)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let instructions = summary
        .pointer("/profiles/0/data/total/metrics/Ir/values/new")
        .and_then(serde_json::Value::as_u64)
        .ok_or("gungraun summary without a callgrind Ir count")?;
    Ok(GungraunSummary {
        group: text("/group").ok_or("gungraun summary without group")?,
        function: text("/function_name").ok_or("gungraun summary without function_name")?,
        id: text("/id").unwrap_or_default(),
        instructions,
    })
}

/// A Rust identifier as a lab name: groups and functions are named like experiments and
/// implementation modules (`remove_all_up_to` → `remove-all-up-to`), and bench ids like
/// parameters, with a leading `_` when the name starts with a digit (`_50k_in_1` → `50k-in-1`).
pub fn lab_name(identifier: &str) -> String {
    identifier.trim_start_matches('_').replace('_', "-")
}

/// Instructions per op for every `summary.json` below `dir`, as
/// `<group>/<function>/<bench id>`; `ops_per_run` gives each experiment's op count.
pub fn gungraun_tree(dir: &Path, ops_per_run: fn(&str) -> u64) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    for path in files_named(dir, "summary.json") {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let summary =
            gungraun_instructions(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let experiment = lab_name(&summary.group);
        let id = BenchId::new(
            &experiment,
            &lab_name(&summary.function),
            &lab_name(&summary.id),
        );
        let per_op = summary.instructions as f64 / ops_per_run(&experiment) as f64;
        records.push(Record::new(id, Metric::InstructionsPerOp, per_op));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_median_interval_and_throughput_become_records() {
        let dir = std::env::temp_dir().join(format!("xtask-criterion-{}", std::process::id()));
        let new = dir.join("admission/atomic-slot/shared-2/new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join("benchmark.json"), r#"{"group_id":"admission","function_id":"atomic-slot","value_str":"shared-2","throughput":{"Elements":2},"full_id":"admission/atomic-slot/shared-2","directory_name":"x","title":"x"}"#).unwrap();
        let est = |v: f64| {
            format!(
                r#"{{"point_estimate":{},"standard_error":1.0,"confidence_interval":{{"confidence_level":0.95,"lower_bound":{},"upper_bound":{}}}}}"#,
                v,
                v - 1.0,
                v + 1.0
            )
        };
        std::fs::write(
            new.join("estimates.json"),
            format!(
                r#"{{"mean":{},"median":{},"median_abs_dev":{},"slope":null,"std_dev":{}}}"#,
                est(11.0),
                est(10.0),
                est(0.5),
                est(0.7)
            ),
        )
        .unwrap();
        let records = criterion_tree(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(records.len(), 2);
        let ns = &records[0];
        assert_eq!(ns.id.to_string(), "admission/atomic-slot/shared-2");
        assert_eq!((ns.metric, ns.value), (Metric::NsPerOp, 10.0));
        assert_eq!(ns.interval.unwrap().lower, 9.0);
        let ops = &records[1];
        assert_eq!(ops.metric, Metric::OpsPerSec);
        assert!((ops.value - 2e8).abs() < 1.0);
        let ci = ops.interval.unwrap();
        assert!(ci.lower < ops.value && ops.value < ci.upper);
    }

    #[test]
    fn gungraun_summary_gives_instructions() {
        let json = r#"{"group":"remove_all_up_to","function_name":"nested_tree","id":"_50k_in_1","profiles":[{"data":{"parts":[],"total":{"metrics":{"Ir":{"values":{"new":52000}},"Dr":{"values":{"new":1}}}}}}]}"#;
        let summary = gungraun_instructions(json).unwrap();
        assert_eq!(
            (summary.group.as_str(), summary.instructions),
            ("remove_all_up_to", 52000)
        );
        assert_eq!(lab_name(&summary.group), "remove-all-up-to");
        assert_eq!(lab_name(&summary.function), "nested-tree");
        assert_eq!(lab_name(&summary.id), "50k-in-1");
        assert_eq!(lab_name("single"), "single");
        assert!(gungraun_instructions("{}").is_err());
    }
}

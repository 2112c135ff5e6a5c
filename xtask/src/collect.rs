//! Turns the raw output of criterion and gungraun into lab records.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use labkit::lab::{BenchCase, Lab, counted_cases_of, experiment};
use labkit::record::{Interval, Metric, Record};
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
pub fn criterion_records(new_dir: &Path) -> Result<Vec<Record>> {
    let read = |name: &str| {
        let path = new_dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let bench: CriterionBenchmark = serde_json::from_str(&read("benchmark.json")?)
        .with_context(|| new_dir.display().to_string())?;
    let estimates: CriterionEstimates = serde_json::from_str(&read("estimates.json")?)
        .with_context(|| new_dir.display().to_string())?;
    let (Some(implementation), Some(parameter)) = (bench.function_id, bench.value_str) else {
        bail!(
            "{}: criterion id is not <experiment>/<implementation>/<parameter>",
            new_dir.display()
        );
    };
    let id = BenchCase::new(&bench.group_id, &parameter).id(&implementation);
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
pub fn criterion_tree(home: &Path) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    for estimates in files_named(home, "estimates.json") {
        let dir = estimates.parent().expect("a file has a parent");
        if dir.file_name().is_some_and(|n| n == "new") {
            records.extend(criterion_records(dir)?);
        }
    }
    Ok(records)
}

/// One gungraun benchmark's result: its function (an implementation's registry module), bench id
/// (`case_<n>`) and instruction count.
#[derive(Debug, PartialEq)]
pub struct GungraunSummary {
    pub function: String,
    pub id: String,
    pub instructions: u64,
}

/// The instruction count (`Ir`) of a gungraun 0.20 `summary.json`.
pub fn gungraun_instructions(summary_json: &str) -> Result<GungraunSummary> {
    let summary: serde_json::Value = serde_json::from_str(summary_json).context("not JSON")?;
    let text = |pointer: &str| {
        summary
            .pointer(pointer)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let instructions = summary
        .pointer("/profiles/0/data/total/metrics/Ir/values/new")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| anyhow!("gungraun summary without a callgrind Ir count"))?;
    Ok(GungraunSummary {
        function: text("/function_name")
            .ok_or_else(|| anyhow!("gungraun summary without function_name"))?,
        id: text("/id").unwrap_or_default(),
        instructions,
    })
}

/// The counted case a gungraun bench id (`case_<n>`) stands for: the n-th of the lab's
/// [`counted_cases_of`], which is how `labkit::instruction_benches!` numbers them.
pub fn counted_case(lab: &dyn Lab, bench_id: &str) -> Result<BenchCase> {
    let cases = counted_cases_of(lab);
    bench_id
        .strip_prefix("case_")
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| cases.get(n).cloned())
        .ok_or_else(|| {
            anyhow!(
                "gungraun bench id `{bench_id}` is not one of {}'s counted cases",
                lab.name()
            )
        })
}

/// Instructions per op for every `summary.json` below `dir`.
pub fn gungraun_tree(dir: &Path, lab: &dyn Lab) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    for path in files_named(dir, "summary.json") {
        let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        let summary = gungraun_instructions(&text).with_context(|| path.display().to_string())?;
        let case = counted_case(lab, &summary.id)?;
        let ops = experiment(lab, &case.experiment)
            .map_err(|e| anyhow!(e))?
            .ops(lab.counted_ops());
        let id = case.id(&summary.function.replace('_', "-"));
        let per_op = summary.instructions as f64 / ops as f64;
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
    fn gungraun_summaries_become_per_op_records_of_the_counted_case() {
        let lab = crate::labs::find("pending-ack").unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-gungraun-{}", std::process::id()));
        let case = counted_cases_of(lab)
            .iter()
            .position(|c| c.experiment == "remove-all-up-to")
            .unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let json = format!(
            r#"{{"group":"instructions","function_name":"nested_tree","id":"case_{case}","profiles":[{{"data":{{"parts":[],"total":{{"metrics":{{"Ir":{{"values":{{"new":52000}}}},"Dr":{{"values":{{"new":1}}}}}}}}}}}}]}}"#
        );
        std::fs::write(dir.join("summary.json"), json).unwrap();
        let records = gungraun_tree(&dir, lab).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(
            records[0].id.to_string(),
            "remove-all-up-to/nested-tree/50k-in-1"
        );
        assert_eq!(records[0].value, 52000.0, "a cleanup is one op");
        assert!(gungraun_instructions("{}").is_err());
        assert!(counted_case(lab, "case_999").is_err());
        assert!(counted_case(lab, "_50k_in_1").is_err());
    }
}

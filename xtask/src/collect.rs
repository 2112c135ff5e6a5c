//! Turns gungraun's raw output into lab records.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use labkit_measure::callgrind::{self, Buckets};
use labkit_measure::lab::Describe;
use labkit_measure::lab::{BenchCase, counted_cases_of, experiment};
use labkit_measure::record::{BenchId, EventName, Metric, Record};

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

/// One gungraun benchmark's result: its function (an implementation's registry module), bench id
/// (`case_<n>`) and instruction count.
#[derive(Debug, PartialEq)]
pub struct GungraunSummary {
    pub function: String,
    pub id: String,
    pub instructions: u64,
    /// Present when callgrind simulated the caches.
    pub estimated_cycles: Option<u64>,
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
    let metric = |name: &str| {
        summary
            .pointer(&format!("/profiles/0/data/total/metrics/{name}/values/new"))
            .and_then(serde_json::Value::as_u64)
    };
    let instructions =
        metric("Ir").ok_or_else(|| anyhow!("gungraun summary without a callgrind Ir count"))?;
    Ok(GungraunSummary {
        function: text("/function_name")
            .ok_or_else(|| anyhow!("gungraun summary without function_name"))?,
        id: text("/id").unwrap_or_default(),
        instructions,
        estimated_cycles: metric("EstimatedCycles"),
    })
}

/// The counted case a gungraun bench id (`case_<n>`) stands for: the n-th of the lab's
/// [`counted_cases_of`], which is how `labkit_measure::instruction_benches!` numbers them.
pub fn counted_case(lab: &dyn Describe, bench_id: &str) -> Result<BenchCase> {
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

/// Instructions per op in each of the lab's cost buckets, from the callgrind profile beside a
/// benchmark's summary.
fn split_records(summary: &Path, id: &BenchId, ops: u64, buckets: &Buckets) -> Result<Vec<Record>> {
    let Some(dir) = summary.parent() else {
        return Ok(Vec::new());
    };
    let mut profiles: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| dir.display().to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("callgrind.") && n.ends_with(".out"))
        })
        .collect();
    profiles.sort();
    let Some(profile) = profiles.first() else {
        bail!("no callgrind profile beside {}", summary.display());
    };
    let text = std::fs::read_to_string(profile).with_context(|| profile.display().to_string())?;
    let costs = callgrind::self_costs(&text)
        .map_err(|e| anyhow!(e))
        .with_context(|| profile.display().to_string())?;
    buckets
        .split(&costs)
        .into_iter()
        .map(|(bucket, instructions)| {
            let name = EventName::try_new(&bucket)
                .ok_or_else(|| anyhow!("cost bucket name `{bucket}` is longer than 32 bytes"))?;
            Ok(Record::new(
                id.clone(),
                Metric::InstructionsIn(name),
                instructions as f64 / ops as f64,
            ))
        })
        .collect()
}

/// Instructions (and modelled cycles, when simulated) per op for every `summary.json` below
/// `dir`, and the instructions split into the lab's cost buckets.
pub fn gungraun_tree(dir: &Path, lab: &dyn Describe) -> Result<Vec<Record>> {
    let buckets = lab.cost_buckets();
    let mut records = Vec::new();
    for path in files_named(dir, "summary.json") {
        let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        let summary = gungraun_instructions(&text).with_context(|| path.display().to_string())?;
        let case = counted_case(lab, &summary.id)?;
        let ops = experiment(lab, &case.experiment)
            .map_err(|e| anyhow!(e))?
            .ops(lab.counted_ops());
        let id = case.id(&summary.function.replace('_', "-"));
        let per_op = |count: u64| count as f64 / ops as f64;
        records.push(Record::new(
            id.clone(),
            Metric::InstructionsPerOp,
            per_op(summary.instructions),
        ));
        if let Some(cycles) = summary.estimated_cycles {
            records.push(Record::new(
                id.clone(),
                Metric::EstimatedCyclesPerOp,
                per_op(cycles),
            ));
        }
        if !buckets.buckets.is_empty() {
            records.extend(split_records(&path, &id, ops, &buckets)?);
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gungraun_summaries_become_per_op_records_of_the_counted_case() {
        let lab: &dyn Describe = &labkit_measure::fixture::TINY;
        let dir = std::env::temp_dir().join(format!("xtask-gungraun-{}", std::process::id()));
        let case = counted_cases_of(lab)
            .iter()
            .position(|c| c.experiment == "cleanup")
            .unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let json = format!(
            r#"{{"group":"instructions","function_name":"fast","id":"case_{case}","profiles":[{{"data":{{"parts":[],"total":{{"metrics":{{"Ir":{{"values":{{"new":52000}}}},"EstimatedCycles":{{"values":{{"new":70000}}}}}}}}}}}}]}}"#
        );
        std::fs::write(dir.join("summary.json"), json).unwrap();
        let missing = gungraun_tree(&dir, lab).unwrap_err().to_string();
        assert!(missing.contains("no callgrind profile"), "{missing}");
        let profile =
            "events: Ir\nfl=(1) malloc.c\nfn=(1) malloc\n0 2000\nfl=(2) x.rs\nfn=(2) f\n0 50000\n";
        std::fs::write(dir.join(format!("callgrind.fast.case_{case}.out")), profile).unwrap();
        let records = gungraun_tree(&dir, lab).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let split: Vec<(String, f64)> = records[2..]
            .iter()
            .map(|r| (r.metric.key(), r.value))
            .collect();
        assert_eq!(
            split,
            [
                ("instructions-in(the allocator)".to_owned(), 2000.0),
                ("instructions-in(the rest)".to_owned(), 50000.0)
            ]
        );
        assert_eq!(records[0].id.to_string(), "cleanup/fast/small");
        assert_eq!(records[0].value, 52000.0, "a cleanup is one op");
        assert_eq!(records.len(), 2 + lab.cost_buckets().names().len());
        assert_eq!(
            (records[1].metric, records[1].value),
            (Metric::EstimatedCyclesPerOp, 70000.0)
        );
        assert!(gungraun_instructions("{}").is_err());
        assert!(counted_case(lab, "case_999").is_err());
        assert!(counted_case(lab, "_small").is_err());
    }
}

//! JMH's and JOL's output read into the lab's records. The driver runs them ([`crate::lab::JvmBenchmarks`]
//! names what); this module only reads what they wrote: JMH's result file (`-rf json`), one fork
//! of one benchmark per file, and a JOL weighing's `retained=<bytes>` line.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::lab::JmhSettings;
use crate::record::{BenchId, Metric, Record, RunMode};

/// One benchmark's result in a JMH result file: one fork of it, in the lab's runs.
#[derive(Debug, Clone, PartialEq)]
pub struct JmhRun {
    pub benchmark: String,
    pub threads: usize,
    pub params: BTreeMap<String, String>,
    /// Every measured iteration, in nanoseconds per operation (per thread, as `avgt` averages).
    pub iterations: Vec<f64>,
    /// `gc.alloc.rate.norm` (`-prof gc`): bytes allocated per operation, when profiled.
    pub bytes_per_op: Option<f64>,
    pub jvm: JvmFacts,
}

/// What a result file says of the JVM that ran it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JvmFacts {
    /// `OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1`.
    pub vm: String,
    pub jmh_version: String,
    /// The flags the fork ran with, beyond JMH's own.
    pub flags: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawResult {
    benchmark: String,
    mode: String,
    threads: usize,
    #[serde(default)]
    params: BTreeMap<String, String>,
    jmh_version: String,
    #[serde(default)]
    jvm_args: Vec<String>,
    vm_name: String,
    vm_version: String,
    primary_metric: RawMetric,
    #[serde(default)]
    secondary_metrics: BTreeMap<String, RawMetric>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMetric {
    score: f64,
    score_unit: String,
    #[serde(default)]
    raw_data: Vec<Vec<f64>>,
}

/// Nanoseconds in one of JMH's `avgt` units.
fn nanoseconds_in(unit: &str) -> Result<f64, String> {
    Ok(match unit {
        "ns/op" => 1.0,
        "us/op" => 1e3,
        "ms/op" => 1e6,
        "s/op" => 1e9,
        other => {
            return Err(format!(
                "unit `{other}` is not an average time per operation"
            ));
        }
    })
}

/// The benchmarks of a JMH result file (`-rf json`), in average-time mode.
pub fn parse(json: &str) -> Result<Vec<JmhRun>, String> {
    let raw: Vec<RawResult> =
        serde_json::from_str(json).map_err(|e| format!("unreadable JMH result file: {e}"))?;
    raw.into_iter()
        .map(|r| {
            if r.mode != "avgt" {
                return Err(format!("{}: mode `{}`, not avgt", r.benchmark, r.mode));
            }
            let scale = nanoseconds_in(&r.primary_metric.score_unit)?;
            let iterations: Vec<f64> = r
                .primary_metric
                .raw_data
                .iter()
                .flatten()
                .map(|v| v * scale)
                .collect();
            if iterations.is_empty() || !r.primary_metric.score.is_finite() {
                return Err(format!("{}: no measured iteration", r.benchmark));
            }
            Ok(JmhRun {
                bytes_per_op: r
                    .secondary_metrics
                    .get("gc.alloc.rate.norm")
                    .map(|m| m.score),
                benchmark: r.benchmark,
                threads: r.threads,
                params: r.params,
                iterations,
                jvm: JvmFacts {
                    vm: format!("{} {}", r.vm_name, r.vm_version),
                    jmh_version: r.jmh_version,
                    flags: r.jvm_args,
                },
            })
        })
        .collect()
}

impl JmhRun {
    /// The fork's value: the median of its measured iterations, so that one iteration the
    /// machine disturbed does not move the fork (JMH's own score is their mean; its error,
    /// [`error`], is over every iteration).
    pub fn ns_per_op(&self) -> f64 {
        crate::stats::median(&self.iterations)
    }

    /// Its records as one pass of `id`: time per operation, operations per second summed over
    /// its threads where the case reports throughput, and bytes per operation when profiled.
    pub fn records(&self, id: &BenchId, throughput: bool) -> Vec<Record> {
        let ns = self.ns_per_op();
        let mut records = vec![Record::new(id.clone(), Metric::NsPerOp, ns)];
        if throughput {
            let ops = self.threads as f64 * 1e9 / ns;
            records.push(Record::new(id.clone(), Metric::OpsPerSec, ops));
        }
        if let Some(bytes) = self.bytes_per_op {
            records.push(Record::new(id.clone(), Metric::BytesPerOp, bytes.max(0.0)));
        }
        records
    }
}

/// JMH's error of a score over several forks: the half-width of the 99.9 % confidence interval
/// of the mean of every measured iteration of every fork (Student's t), as JMH prints it beside a
/// score; `None` for fewer than two iterations.
pub fn error(iterations: &[f64]) -> Option<f64> {
    let n = iterations.len();
    if n < 2 {
        return None;
    }
    let mean = iterations.iter().sum::<f64>() / n as f64;
    let variance = iterations.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(student_t_999((n - 1) as f64) * (variance / n as f64).sqrt())
}

/// The two-sided 99.9 % quantile of Student's t with `dof` degrees of freedom (Cornish-Fisher
/// expansion around the normal's 3.2905; within 0.6 % of the exact value from 5 degrees on, 0.2 %
/// from 7: eight forks of at least one iteration each).
fn student_t_999(dof: f64) -> f64 {
    let z: f64 = 3.290_526_731_491_926;
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * dof)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * dof.powi(2))
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * dof.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * dof.powi(4))
}

/// The bytes a JOL weighing printed (`retained=<bytes>`), or what is wrong with its output.
pub fn weighed(stdout: &str) -> Result<f64, String> {
    stdout
        .lines()
        .find_map(|line| line.trim().strip_prefix("retained="))
        .ok_or_else(|| {
            format!(
                "no `retained=` line in the weighing's output: {}",
                stdout.trim()
            )
        })?
        .parse::<u64>()
        .map(|bytes| bytes as f64)
        .map_err(|e| format!("the weighing's byte count does not read: {e}"))
}

/// The settings of a lab's runs in `mode`: the write-up's iteration counts at most 0.5 s each
/// (so eight forks of every cell fit a run), one fork per pass, `passes` passes; a quick run
/// 0.2 s iterations; a smoke run one 0.1 s iteration with no warm-up, which only proves that
/// every benchmark runs.
pub fn settings(published: JmhSettings, mode: RunMode, passes: u32) -> JmhSettings {
    let capped = |ms: u32, cap: u32| ms.min(cap);
    match mode {
        RunMode::Full => JmhSettings {
            warmup_ms: capped(published.warmup_ms, 500),
            iteration_ms: capped(published.iteration_ms, 500),
            forks: passes,
            ..published
        },
        RunMode::Quick => JmhSettings {
            warmup_ms: capped(published.warmup_ms, 200),
            iteration_ms: capped(published.iteration_ms, 200),
            forks: passes,
            ..published
        },
        RunMode::Smoke => JmhSettings {
            warmup_iterations: 0,
            warmup_ms: 0,
            iterations: 1,
            iteration_ms: 100,
            forks: 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESULT: &str = r#"[{
        "jmhVersion": "1.37", "benchmark": "dedup.SequenceCheckBenchmark.monitorDistinctConcurrent",
        "mode": "avgt", "threads": 2, "forks": 1, "jvm": "/usr/bin/java", "jvmArgs": ["-Xmx1g"],
        "jdkVersion": "17.0.15", "vmName": "OpenJDK 64-Bit Server VM", "vmVersion": "17.0.15+6",
        "params": {"producers": "500"},
        "primaryMetric": {"score": 2.0, "scoreError": 1.0, "scoreUnit": "us/op",
                          "rawData": [[1.0, 2.0, 3.0]]},
        "secondaryMetrics": {"gc.alloc.rate.norm": {"score": 24.0004, "scoreUnit": "B/op",
                                                   "rawData": [[24.0, 24.0, 24.0]]}}
    }]"#;

    #[test]
    fn a_result_file_reads_into_nanoseconds_threads_and_bytes() {
        let runs = parse(RESULT).unwrap();
        let run = &runs[0];
        assert_eq!(run.iterations, [1000.0, 2000.0, 3000.0]);
        assert_eq!(run.ns_per_op(), 2000.0);
        let disturbed = JmhRun {
            iterations: vec![10.0, 11.0, 30.0],
            ..run.clone()
        };
        assert_eq!(
            disturbed.ns_per_op(),
            11.0,
            "one disturbed iteration moves nothing"
        );
        assert_eq!(run.threads, 2);
        assert_eq!(run.params["producers"], "500");
        assert_eq!(run.bytes_per_op, Some(24.0004));
        assert_eq!(run.jvm.vm, "OpenJDK 64-Bit Server VM 17.0.15+6");
        assert_eq!(run.jvm.flags, ["-Xmx1g"]);
        let id = BenchId::new("admission", "jvm-monitor", "distinct-2");
        let records = run.records(&id, true);
        let value = |m: Metric| records.iter().find(|r| r.metric == m).map(|r| r.value);
        assert_eq!(value(Metric::NsPerOp), Some(2000.0));
        assert_eq!(
            value(Metric::OpsPerSec),
            Some(1e6),
            "two threads at 2 µs each"
        );
        assert_eq!(value(Metric::BytesPerOp), Some(24.0004));
        assert!(
            run.records(&id, false)
                .iter()
                .all(|r| r.metric != Metric::OpsPerSec)
        );
    }

    #[test]
    fn results_in_other_modes_or_without_iterations_are_refused() {
        assert!(
            parse(&RESULT.replace("avgt", "thrpt"))
                .unwrap_err()
                .contains("not avgt")
        );
        assert!(
            parse(&RESULT.replace("[[1.0, 2.0, 3.0]]", "[]"))
                .unwrap_err()
                .contains("no measured")
        );
        assert!(
            parse(&RESULT.replace("us/op", "ops/us"))
                .unwrap_err()
                .contains("unit")
        );
        assert!(parse("{").unwrap_err().contains("unreadable"));
    }

    #[test]
    fn the_error_is_jmhs_student_t_half_width() {
        // Eight iterations: t = 5.408 with 7 degrees, times the standard error of their mean.
        let iterations = [4.0, 5.0, 3.0, 6.0, 5.1, 4.4, 5.5, 3.8];
        let n = iterations.len() as f64;
        let mean = iterations.iter().sum::<f64>() / n;
        let sd = (iterations.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let t = error(&iterations).unwrap() / (sd / n.sqrt());
        assert!((t - 5.408).abs() / 5.408 < 0.002, "t = {t}");
        // 39 degrees (eight forks of five iterations): 3.558; 5 degrees: 6.869.
        assert!((student_t_999(39.0) - 3.558).abs() < 0.001);
        assert!((student_t_999(5.0) - 6.869).abs() / 6.869 < 0.006);
        assert_eq!(error(&[1.0]), None);
    }

    #[test]
    fn weighings_read_their_line_or_say_what_they_printed() {
        assert_eq!(weighed("# WARNING: x\nretained=4808\n"), Ok(4808.0));
        assert!(weighed("oops").unwrap_err().contains("oops"));
        assert!(weighed("retained=x").is_err());
    }

    #[test]
    fn full_runs_cap_iterations_and_fork_once_per_pass() {
        let published = JmhSettings {
            warmup_iterations: 3,
            warmup_ms: 1000,
            iterations: 5,
            iteration_ms: 1000,
            forks: 2,
        };
        let full = settings(published, RunMode::Full, 8);
        assert_eq!(full.describe(), "3 × 0.5 s warm-up, 5 × 0.5 s, 8 forks");
        assert_eq!(published.describe(), "3 × 1 s warm-up, 5 × 1 s, 2 forks");
        assert_eq!(settings(published, RunMode::Smoke, 2).iterations, 1);
    }
}

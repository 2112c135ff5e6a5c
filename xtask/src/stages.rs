//! Measuring one lab: the allocation, instruction-count and wall-time stages, each a run of one of
//! the lab's bench binaries, with the selection derived from the lab's description, then the JVM
//! side's JMH forks and JOL weighings ([`crate::jvm`]). The wall-time stage is several passes,
//! each a separate process of its own link order, environment size and seed
//! ([`crate::wall_time`]).

use std::time::Instant;

use anyhow::{Result, anyhow};
use labkit_measure::env::JvmRun;
use labkit_measure::lab::Describe;
use labkit_measure::lab::{Selection, counted_cases_of, timed_ids};
use labkit_measure::record::{
    Metric, PassRepeat, Record, StageSeconds, TimingMethod, load_records,
};

use crate::collect;
use crate::shell::{root, run, run_merged};
use crate::wall_time::LabRun;

/// Extra callgrind arguments for every instruction-count run (bench and gate alike): the cache
/// simulation behind gungraun's estimated cycles (L1 hits + 5 × LL hits + 35 × RAM hits), with a
/// fixed cache geometry (32 KiB 8-way L1i and L1d, 8 MiB 16-way LL, 64-byte lines) rather than
/// the host's, so the model gives the same figure on every machine.
pub const CALLGRIND_ARGS: &str =
    "--callgrind-args=--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64";

/// What one stage produced: the records its binary managed to write (also when it failed
/// part-way, so one failing benchmark does not lose the others) and the failure, if any.
pub fn stage_outcome(
    ran: Result<()>,
    collected: Result<Vec<Record>>,
) -> (Vec<Record>, Option<String>) {
    match (ran, collected) {
        (Ok(()), Ok(records)) => (records, None),
        (Ok(()), Err(e)) => (Vec::new(), Some(format!("{e:#}"))),
        (Err(e), Ok(records)) => (records, Some(format!("{e:#}"))),
        (Err(e), Err(_)) => (Vec::new(), Some(format!("{e:#}"))),
    }
}

/// What measuring one lab produced: its records, the stages that failed, how it was timed and
/// the passes run again.
pub struct Measured {
    pub records: Vec<Record>,
    pub failures: Vec<String>,
    pub timing: TimingMethod,
    pub repeats: Vec<PassRepeat>,
    /// What ran the lab's JVM side, or why nothing did; `None` for a lab without one.
    pub jvm: Option<Result<JvmRun, String>>,
}

/// gungraun filters (`file::group::function::id` wildcards) that run exactly the selected
/// instruction benchmarks: one per chosen case when cases are filtered, one per chosen
/// implementation otherwise; none when everything is chosen. Empty when nothing is selected.
pub fn gungraun_filters(lab: &dyn Describe, selection: &Selection) -> Option<Vec<String>> {
    if selection.is_everything() {
        return None;
    }
    let functions: Vec<String> = if selection.implementations.is_empty() {
        vec!["*".into()]
    } else {
        selection
            .implementations
            .iter()
            .map(|i| i.replace('-', "_"))
            .collect()
    };
    let cases_filtered = !selection.experiments.is_empty() || !selection.parameters.is_empty();
    let ids: Vec<String> = if cases_filtered {
        counted_cases_of(lab)
            .iter()
            .enumerate()
            .filter(|(_, c)| selection.selects_case(&c.experiment, &c.parameter))
            .map(|(n, _)| format!("case_{n}"))
            .collect()
    } else {
        vec!["*".into()]
    };
    Some(
        functions
            .iter()
            .flat_map(|f| ids.iter().map(move |id| format!("*::{f}::{id}")))
            .collect(),
    )
}

/// gungraun's header line of a benchmark (`instructions::instructions::nested_tree case_3:...`)
/// with the bench's `<experiment>/<implementation>/<parameter>` id in front.
fn with_lab_id(lab: &dyn Describe, line: &str) -> String {
    let Some((path, rest)) = line.split_once(' ') else {
        return line.to_owned();
    };
    let (Some(function), Some(bench_id)) = (path.rsplit("::").next(), rest.split(':').next())
    else {
        return line.to_owned();
    };
    match collect::counted_case(lab, bench_id) {
        Ok(case) if path.contains("::") => {
            format!(
                "{}  ({path} {bench_id})",
                case.id(&function.replace('_', "-"))
            )
        }
        _ => line.to_owned(),
    }
}

/// Stage 2: the instruction counts (gungraun) of the counted cases `selection` keeps, or `None`
/// when the lab counts no case.
fn count_instructions(
    lab_run: &LabRun,
    selection: &Selection,
) -> Option<(Vec<Record>, Option<String>)> {
    let (lab, binaries, name) = (lab_run.lab, lab_run.binaries, lab_run.lab.name());
    if counted_cases_of(lab).is_empty() {
        return None;
    }
    println!("==> [{name}] stage 2/4 instruction counts (gungraun)");
    let gungraun_dir = root().join("target/gungraun").join(lab.package());
    let _ = std::fs::remove_dir_all(&gungraun_dir);
    let filters = gungraun_filters(lab, selection).unwrap_or_else(|| vec![String::new()]);
    let mut ran = Ok(());
    for filter in &filters {
        if ran.is_err() {
            break;
        }
        // Instruction counts do not depend on timing, so benchmarks may share the cores.
        ran = binaries.command(lab, "instructions").and_then(|mut cmd| {
            cmd.arg("--save-summary=json")
                .arg("--parallel=auto")
                .arg(CALLGRIND_ARGS);
            if !filter.is_empty() {
                cmd.arg(filter);
            }
            run_merged(&mut cmd, |line| println!("{}", with_lab_id(lab, line)))
        });
    }
    Some(stage_outcome(
        ran,
        collect::gungraun_tree(&gungraun_dir, lab),
    ))
}

/// Measures one lab; returns its records and the stages that failed.
pub fn measure(lab_run: &LabRun) -> Result<Measured> {
    let (lab, mode, words) = (lab_run.lab, lab_run.mode, lab_run.words);
    let (binaries, work) = (lab_run.binaries, lab_run.work);
    let selection = Selection::parse(lab, words).map_err(|e| anyhow!(e))?;
    let name = lab.name();
    let mut records = Vec::new();
    let mut failures = Vec::new();
    let started = Instant::now();
    let mut stage_started = Instant::now();
    let mut stage_seconds = [0.0; 4];
    let mut stage = |n: usize, what: &str, (found, failure): (Vec<Record>, Option<String>)| {
        let seconds = stage_started.elapsed().as_secs_f64();
        stage_started = Instant::now();
        stage_seconds[n - 1] = seconds;
        let count = found.len();
        // The timer's own cost, the machine's disturbance of a pass and a case's seconds
        // belong to no design: they are kept whatever the filter.
        records.extend(found.into_iter().filter(|r| {
            selection.selects(&r.id)
                || matches!(
                    r.metric,
                    Metric::TimerOverheadNs | Metric::PassDisturbance(_) | Metric::CaseSeconds
                )
        }));
        match failure {
            None => println!("==> [{name}] stage {n}/4 {what}: {count} records in {seconds:.0} s"),
            Some(e) => {
                println!(
                    "==> [{name}] stage {n}/4 {what} FAILED after {seconds:.0} s ({count} records \
                     kept): {e}"
                );
                failures.push(format!("{what}: {e}"));
            }
        }
    };
    let mode_flag = mode.bench_flag();

    println!("==> [{name}] stage 1/4 allocation and footprint runs");
    let alloc_out = work.join("alloc.json");
    let _ = std::fs::remove_file(&alloc_out);
    let ran = binaries
        .command(lab, "alloc")
        .and_then(|mut cmd| run(cmd.arg("--out").arg(&alloc_out).args(mode_flag).args(words)));
    let collected = load_records(&alloc_out).map_err(|e| anyhow!(e));
    stage(1, "allocation", stage_outcome(ran, collected));

    match count_instructions(lab_run, &selection) {
        Some(outcome) => stage(2, "instructions", outcome),
        None => println!(
            "==> [{name}] stage 2/4 instruction counts: none (no single-thread case to count)"
        ),
    }

    let planned = timed_ids(lab)
        .iter()
        .filter(|id| selection.selects(id))
        .count();
    let timing = lab.timing(mode);
    println!(
        "==> [{name}] stage 3/4 wall time ({} mode): {planned} cells × {} passes × {} samples",
        mode.label(),
        timing.passes,
        timing.rounds
    );
    let timed = crate::wall_time::time_passes(lab_run);
    stage(3, "time", stage_outcome(timed.ran, Ok(timed.records)));
    let jvm = if lab.jvm().is_some() {
        println!("==> [{name}] stage 4/4 the JVM side (JMH forks, JOL weighings)");
        let outcome = crate::jvm::measure(lab, mode, &selection, timing.passes, work)
            .expect("a lab with a JVM side");
        let failure = (!outcome.failures.is_empty()).then(|| outcome.failures.join("; "));
        stage(4, "JVM", (outcome.records, failure));
        Some(outcome.run)
    } else {
        None
    };
    let [allocation, instructions, wall_time, jvm_seconds] = stage_seconds;
    let timing = TimingMethod {
        stage_seconds: Some(StageSeconds {
            allocation,
            instructions,
            wall_time,
            jvm: jvm_seconds,
            filtered: lab_run.filtered,
        }),
        ..timed.method
    };
    println!(
        "==> [{name}] measured in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(Measured {
        records,
        failures,
        timing,
        repeats: timed.repeats,
        jvm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit_measure::fixture::TINY;
    use labkit_measure::record::BenchId;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_failed_stage_keeps_what_its_binary_wrote() {
        let written = || {
            Ok(vec![Record::new(
                BenchId::new("op", "fast", "small"),
                Metric::NsPerOp,
                1.0,
            )])
        };
        assert_eq!(stage_outcome(Ok(()), written()), (written().unwrap(), None));
        let (kept, failure) = stage_outcome(Err(anyhow!("bench 7 panicked")), written());
        assert_eq!(
            (kept.len(), failure.as_deref()),
            (1, Some("bench 7 panicked"))
        );
        let (kept, failure) = stage_outcome(Err(anyhow!("crashed")), Err(anyhow!("no output")));
        assert_eq!((kept.len(), failure.as_deref()), (0, Some("crashed")));
        let (kept, failure) = stage_outcome(Ok(()), Err(anyhow!("unreadable")));
        assert_eq!((kept.len(), failure.as_deref()), (0, Some("unreadable")));
    }

    #[test]
    fn filters_reach_gungraun() {
        let lab: &dyn Describe = &TINY;
        let s = Selection::parse(lab, &words(&["fast", "base", "shared-4"])).unwrap();
        assert_eq!(
            gungraun_filters(lab, &s).unwrap(),
            Vec::<String>::new(),
            "shared-4 is not counted"
        );
        let s = Selection::parse(lab, &words(&["fast"])).unwrap();
        assert_eq!(gungraun_filters(lab, &s).unwrap(), ["*::fast::*"]);
        assert_eq!(gungraun_filters(lab, &Selection::default()), None);

        let s = Selection::parse(lab, &words(&["cleanup", "small"])).unwrap();
        let filters = gungraun_filters(lab, &s).unwrap();
        assert_eq!(filters.len(), 1);
        let case = collect::counted_case(lab, filters[0].rsplit("::").next().unwrap()).unwrap();
        assert_eq!(case.to_string(), "cleanup/small");
    }

    #[test]
    fn planned_counts_follow_the_selection() {
        let lab: &dyn Describe = &TINY;
        let s = Selection::parse(lab, &words(&["cleanup", "fast"])).unwrap();
        let chosen = timed_ids(lab).iter().filter(|id| s.selects(id)).count();
        let parameters = labkit_measure::lab::experiment(lab, "cleanup")
            .unwrap()
            .parameters
            .len();
        assert_eq!(chosen, parameters);
        let s = Selection::parse(lab, &words(&["cleanup"])).unwrap();
        let chosen = timed_ids(lab).iter().filter(|id| s.selects(id)).count();
        let cells = lab.implementations().len() + 3;
        assert_eq!(
            chosen,
            parameters * cells,
            "every implementation, the A/A twin and the slowed twins"
        );
    }

    #[test]
    fn gungraun_headers_gain_the_lab_id() {
        let line = "instructions::instructions::fast case_1:open_counted(nth of x)";
        assert!(with_lab_id(&TINY, line).starts_with("cleanup/fast/small  ("));
        assert_eq!(with_lab_id(&TINY, "  Instructions: 5"), "  Instructions: 5");
    }
}

//! Measuring one lab: the allocation, instruction-count and wall-time stages, each a run of one of
//! the lab's bench binaries, with the selection derived from the lab's description. The wall-time
//! stage is several passes, each a separate process of its own link order, environment size and
//! seed ([`time_passes`]).

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use labkit::lab::{Lab, Selection, counted_cases_of, timed_ids};
use labkit::record::{
    LinkOrder, Metric, Record, RunMode, TimingMethod, combine_passes, load_records,
};

use crate::binaries::BenchBinaries;
use crate::collect;
use crate::process::{root, run, run_merged};

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

/// "n of N done, ETA" for a stage of equally sized steps.
struct Progress {
    lab: &'static str,
    what: &'static str,
    planned: usize,
    done: usize,
    started: Instant,
}

impl Progress {
    fn new(lab: &'static str, what: &'static str, planned: usize) -> Self {
        Self {
            lab,
            what,
            planned,
            done: 0,
            started: Instant::now(),
        }
    }

    fn finished_one(&mut self) {
        self.done += 1;
        let elapsed = self.started.elapsed().as_secs_f64();
        let remaining = self.planned.saturating_sub(self.done);
        let eta = elapsed / self.done as f64 * remaining as f64;
        println!(
            "==> [{}] {}/{} {} done, {remaining} to go, ETA {}:{:02}",
            self.lab,
            self.done,
            self.planned,
            self.what,
            (eta / 60.0) as u64,
            (eta % 60.0) as u64
        );
    }
}

/// The environment-size padding of pass `seed` (0 to 4095 bytes): the environment sits at the top
/// of the initial stack, so its size moves every stack address of the pass (Mytkowicz et al.,
/// "Producing wrong data without doing anything obviously wrong!", ASPLOS 2009).
pub fn environment_padding(seed: u64) -> String {
    let bytes = (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize;
    "x".repeat(bytes)
}

/// The seed of a run's first pass: new every run, so a re-run draws new placements (passes with
/// the same seed share link order, stack and heap offsets, and their ratios correlate across
/// runs). Kept below 2^31 and above 0, which lld reads as "random".
fn run_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    1 + (nanos % (1 << 30)) as u64
}

/// The wall-time stage: `timing.passes` separate processes of the lab's `time` binary, each
/// linked with its own code order (unless `link_order` is fixed), started with its own
/// environment size and seeded (case order, cell order per round, heap spacers), the seeds
/// consecutive from a new [`run_seed`]. Returns what the method was, whether every pass ran, and
/// the records combined across passes, pass by pass.
fn time_passes(
    lab: &'static dyn Lab,
    mode: RunMode,
    words: &[String],
    binaries: &BenchBinaries,
    work: &Path,
    link_order: LinkOrder,
) -> (TimingMethod, Result<()>, Vec<Record>) {
    let timing = lab.timing(mode);
    let first_seed = run_seed();
    let mut method = TimingMethod {
        first_seed,
        passes: timing.passes,
        rounds: timing.rounds,
        sample_ns: timing.sample.as_nanos() as u64,
        link_order,
    };
    let mut progress = Progress::new(lab.name(), "passes", timing.passes);
    let mut passes = Vec::new();
    let mut first_binary: Option<std::path::PathBuf> = None;
    let mut ran = Ok(());
    for pass in 1..=timing.passes as u64 {
        let seed = first_seed + pass - 1;
        let out = work.join(format!("pass-{pass}.json"));
        let _ = std::fs::remove_file(&out);
        ran = (|| {
            let mut cmd = match link_order {
                LinkOrder::ShuffledPerPass => {
                    let executable = binaries.relinked(lab, "time", seed, work)?;
                    // A linker that ignores the seed (not lld, or another target than the
                    // wrapper's) links every pass alike: then the report must not claim layouts.
                    match &first_binary {
                        None => first_binary = Some(executable.clone()),
                        Some(first) if method.link_order == LinkOrder::ShuffledPerPass => {
                            if same_bytes(first, &executable)? {
                                println!(
                                    "==> [{}] warning: the link order did not change between \
                                     passes (is the linker lld?); reporting one fixed layout",
                                    lab.name()
                                );
                                method.link_order = LinkOrder::Fixed;
                            }
                        }
                        Some(_) => {}
                    }
                    binaries.command_of(lab, &executable)
                }
                LinkOrder::Fixed => binaries.command(lab, "time")?,
            };
            cmd.env("LABKIT_PLACEMENT_PADDING", environment_padding(seed))
                .args(["--seed", &seed.to_string()])
                .arg("--out")
                .arg(&out)
                .args(mode.bench_flag())
                .args(words);
            run(&mut cmd)?;
            passes.push(load_records(&out).map_err(|e| anyhow!(e))?);
            Ok(())
        })();
        if ran.is_err() {
            break;
        }
        progress.finished_one();
    }
    (method, ran, combine_passes(&passes))
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> Result<bool> {
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    Ok(read(a)? == read(b)?)
}

/// gungraun filters (`file::group::function::id` wildcards) that run exactly the selected
/// instruction benchmarks: one per chosen case when cases are filtered, one per chosen
/// implementation otherwise; none when everything is chosen. Empty when nothing is selected.
pub fn gungraun_filters(lab: &dyn Lab, selection: &Selection) -> Option<Vec<String>> {
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
fn with_lab_id(lab: &dyn Lab, line: &str) -> String {
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

/// Measures one lab; returns its records and the stages that failed.
pub fn measure(
    lab: &'static dyn Lab,
    mode: RunMode,
    words: &[String],
    binaries: &BenchBinaries,
    work: &Path,
    link_order: LinkOrder,
) -> Result<(Vec<Record>, Vec<String>, TimingMethod)> {
    let selection = Selection::parse(lab, words).map_err(|e| anyhow!(e))?;
    let name = lab.name();
    let mut records = Vec::new();
    let mut failures = Vec::new();
    let started = Instant::now();
    let mut stage_started = Instant::now();
    let mut stage = |n: usize, what: &str, (found, failure): (Vec<Record>, Option<String>)| {
        let seconds = stage_started.elapsed().as_secs_f64();
        stage_started = Instant::now();
        let count = found.len();
        // The timer's own cost belongs to no design: it is kept whatever the filter.
        records.extend(
            found
                .into_iter()
                .filter(|r| selection.selects(&r.id) || r.metric == Metric::TimerOverheadNs),
        );
        match failure {
            None => println!("==> [{name}] stage {n}/3 {what}: {count} records in {seconds:.0} s"),
            Some(e) => {
                println!(
                    "==> [{name}] stage {n}/3 {what} FAILED after {seconds:.0} s ({count} records \
                     kept): {e}"
                );
                failures.push(format!("{what}: {e}"));
            }
        }
    };
    let mode_flag = mode.bench_flag();

    println!("==> [{name}] stage 1/3 allocation and footprint runs");
    let alloc_out = work.join("alloc.json");
    let _ = std::fs::remove_file(&alloc_out);
    let ran = binaries
        .command(lab, "alloc")
        .and_then(|mut cmd| run(cmd.arg("--out").arg(&alloc_out).args(mode_flag).args(words)));
    let collected = load_records(&alloc_out).map_err(|e| anyhow!(e));
    stage(1, "allocation", stage_outcome(ran, collected));

    if counted_cases_of(lab).is_empty() {
        println!(
            "==> [{name}] stage 2/3 instruction counts: none (no single-thread case to count)"
        );
    } else {
        println!("==> [{name}] stage 2/3 instruction counts (gungraun)");
        let gungraun_dir = root().join("target/gungraun").join(lab.package());
        let _ = std::fs::remove_dir_all(&gungraun_dir);
        let filters = gungraun_filters(lab, &selection).unwrap_or_else(|| vec![String::new()]);
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
        stage(
            2,
            "instructions",
            stage_outcome(ran, collect::gungraun_tree(&gungraun_dir, lab)),
        );
    }

    let planned = timed_ids(lab)
        .iter()
        .filter(|id| selection.selects(id))
        .count();
    let timing = lab.timing(mode);
    println!(
        "==> [{name}] stage 3/3 wall time ({} mode): {planned} cells × {} passes × {} samples",
        mode.label(),
        timing.passes,
        timing.rounds
    );
    let (method, ran, combined) = time_passes(lab, mode, words, binaries, work, link_order);
    stage(3, "time", stage_outcome(ran, Ok(combined)));
    println!(
        "==> [{name}] measured in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok((records, failures, method))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::find;
    use labkit::record::BenchId;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_failed_stage_keeps_what_its_binary_wrote() {
        let written = || {
            Ok(vec![Record::new(
                BenchId::new("admission", "atomic-slot", "single"),
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
        let dedup = find("dedup").unwrap();
        let s =
            Selection::parse(dedup, &words(&["atomic-slot", "topic-mutex", "shared-2"])).unwrap();
        assert_eq!(
            gungraun_filters(dedup, &s).unwrap(),
            Vec::<String>::new(),
            "shared-2 is not counted"
        );
        let s = Selection::parse(dedup, &words(&["atomic-slot"])).unwrap();
        assert_eq!(gungraun_filters(dedup, &s).unwrap(), ["*::atomic_slot::*"]);
        assert_eq!(gungraun_filters(dedup, &Selection::default()), None);

        let pending = find("pending-ack").unwrap();
        let s = Selection::parse(pending, &words(&["remove-all-up-to", "50k-in-1"])).unwrap();
        let filters = gungraun_filters(pending, &s).unwrap();
        assert_eq!(filters.len(), 1);
        let case = collect::counted_case(pending, filters[0].rsplit("::").next().unwrap()).unwrap();
        assert_eq!(case.to_string(), "remove-all-up-to/50k-in-1");
    }

    #[test]
    fn planned_counts_follow_the_selection() {
        let pending = find("pending-ack").unwrap();
        let s = Selection::parse(pending, &words(&["remove-all-up-to", "dense-window"])).unwrap();
        let chosen = timed_ids(pending).iter().filter(|id| s.selects(id)).count();
        let datasets = labkit::lab::experiment(pending, "remove-all-up-to")
            .unwrap()
            .parameters
            .len();
        assert_eq!(chosen, datasets);
        let s = Selection::parse(pending, &words(&["remove-all-up-to"])).unwrap();
        let chosen = timed_ids(pending).iter().filter(|id| s.selects(id)).count();
        let cells = pending.implementations().len() + 1;
        assert_eq!(
            chosen,
            datasets * cells,
            "every implementation and the A/A twin"
        );
    }

    #[test]
    fn identical_binaries_are_told_apart_from_relinked_ones() {
        let dir = std::env::temp_dir().join(format!("xtask-same-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let (a, b, c) = (write("a", b"one"), write("b", b"one"), write("c", b"two"));
        assert!(same_bytes(&a, &b).unwrap());
        assert!(!same_bytes(&a, &c).unwrap());
        assert!(same_bytes(&a, &dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn runs_draw_new_seeds_that_lld_and_the_passes_accept() {
        let seed = run_seed();
        assert!(seed > 0 && seed + 64 < 1 << 31, "{seed}");
    }

    #[test]
    fn passes_differ_in_environment_size_within_a_page() {
        let sizes: Vec<usize> = (1..=8).map(|p| environment_padding(p).len()).collect();
        assert!(sizes.iter().all(|s| *s < 4096), "{sizes:?}");
        let mut distinct = sizes.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), sizes.len(), "{sizes:?}");
    }

    #[test]
    fn gungraun_headers_gain_the_lab_id() {
        let dedup = find("dedup").unwrap();
        let line = "instructions::instructions::atomic_slot case_1:open_counted(nth of x)";
        assert!(with_lab_id(dedup, line).starts_with("admission/atomic-slot/duplicate  ("));
        assert_eq!(with_lab_id(dedup, "  Instructions: 5"), "  Instructions: 5");
    }
}

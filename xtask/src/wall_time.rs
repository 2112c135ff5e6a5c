//! The wall-time stage's passes: separate processes of the lab's `time` binary, each linked with
//! its own code order (unless the layout is fixed), started with its own environment size and
//! seeded (case order, cell orders, heap spacers). After the standard passes come, as
//! [`labkit_measure::passes`] plans them from their records: the disturbed passes again, the
//! outlier passes again on their cases with the same seed, and more passes for the undecided cells.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use labkit_measure::compare::run_margin;
use labkit_measure::lab::single_threaded;
use labkit_measure::passes::{
    case_argument, case_of, decidable_cells, disturbed_passes, judge_outliers, outlier_repeats,
    replace_cases, steal_share,
};
use labkit_measure::record::{
    BenchId, LinkOrder, Metric, PassRepeat, Record, RepeatOutcome, RepeatReason, RunMode,
    TimingMethod, combine_passes, load_records,
};

use crate::binaries::BenchBinaries;
use crate::shell::run;

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
pub(crate) fn run_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    1 + (nanos % (1 << 30)) as u64
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> Result<bool> {
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    Ok(read(a)? == read(b)?)
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

/// What the wall-time stage produced.
pub struct TimedPasses {
    pub method: TimingMethod,
    /// Whether every pass ran.
    pub ran: Result<()>,
    /// The records combined across passes, pass by pass.
    pub records: Vec<Record>,
    pub repeats: Vec<PassRepeat>,
}

/// What one lab is measured with: the lab, the run mode, the selection's words, the built bench
/// binaries, the lab's work directory and how the timed binary is linked.
#[derive(Clone, Copy)]
pub struct LabRun<'a> {
    pub lab: crate::labs::LabRef,
    pub mode: RunMode,
    pub words: &'a [String],
    /// Whether the words were given (a partial run), not the lab's quick selection.
    pub filtered: bool,
    pub binaries: &'a BenchBinaries,
    pub work: &'a Path,
    pub link_order: LinkOrder,
}

/// Runs one pass of a lab's `time` binary at a seed, on some cases or all.
struct PassRunner<'a> {
    run: LabRun<'a>,
    /// The method in use. Its `link_order` is the one that counts: it starts as the requested
    /// `run.link_order` and falls back to `Fixed` when relinking yields identical binaries.
    method: TimingMethod,
    first_binary: Option<PathBuf>,
    runs: usize,
    /// Seconds spent on each case over every pass run, repeats and replaced passes included.
    case_seconds: BTreeMap<BenchId, f64>,
}

impl<'a> PassRunner<'a> {
    /// A runner of `run`'s passes from `first_seed`, with its lab's timing in `run`'s mode.
    fn new(run: LabRun<'a>, first_seed: u64) -> Self {
        let timing = run.lab.timing(run.mode);
        PassRunner {
            run,
            method: TimingMethod {
                first_seed,
                passes: timing.passes,
                extended_passes: timing.passes,
                rounds: timing.rounds,
                sample_ns: timing.sample.as_nanos() as u64,
                link_order: run.link_order,
                same_within: None,
                stage_seconds: None,
            },
            first_binary: None,
            runs: 0,
            case_seconds: BTreeMap::new(),
        }
    }

    /// The executable of the pass at `seed`: relinked in the seed's order, or the one build.
    fn command(&mut self, seed: u64) -> Result<std::process::Command> {
        if self.method.link_order == LinkOrder::Fixed {
            return self.run.binaries.command(self.run.lab, "time");
        }
        // A repeat with the same seed runs the binary linked for it the first time.
        let linked = self.run.work.join(format!("time-link-{seed}"));
        let executable = if linked.exists() {
            linked
        } else {
            self.run
                .binaries
                .relinked(self.run.lab, "time", seed, self.run.work)?
        };
        // A linker that ignores the seed (not lld, or another target than the wrapper's)
        // links every pass alike: then the report must not claim layouts.
        match &self.first_binary {
            None => self.first_binary = Some(executable.clone()),
            Some(first) if *first != executable && same_bytes(first, &executable)? => {
                println!(
                    "==> [{}] warning: the link order did not change between passes (is the \
                     linker lld?); reporting one fixed layout",
                    self.run.lab.name()
                );
                self.method.link_order = LinkOrder::Fixed;
            }
            Some(_) => {}
        }
        Ok(self.run.binaries.command_of(self.run.lab, &executable))
    }

    /// The records of the pass at `seed`, on `cases` (all selected ones when empty).
    fn run(&mut self, seed: u64, cases: &[String]) -> Result<Vec<Record>> {
        self.runs += 1;
        let out = self
            .run
            .work
            .join(format!("pass-{seed}-{}.json", self.runs));
        let _ = std::fs::remove_file(&out);
        let mut cmd = self.command(seed)?;
        cmd.env("LABKIT_PLACEMENT_PADDING", environment_padding(seed))
            .args(["--seed", &seed.to_string()])
            .arg("--out")
            .arg(&out)
            .args(self.run.mode.bench_flag());
        for case in cases {
            cmd.args(["--case", case]);
        }
        run(cmd.args(self.run.words))?;
        let mut records = load_records(&out).map_err(|e| anyhow!(e))?;
        records.retain(|r| {
            let case_time = r.metric == Metric::CaseSeconds;
            if case_time {
                *self.case_seconds.entry(r.id.clone()).or_default() += r.value;
            }
            !case_time
        });
        Ok(records)
    }
}

/// The wall-time stage: `timing.passes` standard passes with seeds consecutive from a new
/// [`run_seed`]; then each disturbed pass again (the less disturbed of the two kept), each
/// outlier pass again on its cases with the same seed (replaced where the outlier was the
/// machine's), and up to `timing.extended_passes` in all for the undecided cells that those can
/// still decide (beside their baselines). The equivalence margin is taken from the final records'
/// A/A twins on single-threaded rows.
pub fn time_passes(lab_run: &LabRun) -> TimedPasses {
    let lab = lab_run.lab;
    let timing = lab.timing(lab_run.mode);
    let first_seed = run_seed();
    remove_stale_links(lab_run.work);
    let mut runner = PassRunner::new(*lab_run, first_seed);
    let mut passes: Vec<Vec<Record>> = Vec::new();
    let mut repeats = Vec::new();
    let ran = (|| -> Result<()> {
        let mut progress = Progress::new(lab.name(), "passes", timing.passes);
        for pass in 0..timing.passes {
            passes.push(runner.run(first_seed + pass as u64, &[])?);
            progress.finished_one();
        }
        repeat_disturbed(&mut runner, &mut passes, &mut repeats)?;
        // The margin δ is the lab's own A/A resolution (its baseline's twin on single-threaded
        // rows); outliers and added passes follow each cell's own baseline.
        let baselines = labkit_measure::lab::baselines(lab);
        let baseline = lab.implementations()[0];
        let margin =
            |records: &[Record]| run_margin(records, baseline, |id| single_threaded(lab, id));
        let extends = timing.extended_passes > timing.passes;
        let combined = combine_passes(&passes);
        // A repeat that replaces an outlier re-draws one disagreeing pass, which would raise
        // the false-positive rate if it could decide a cell alone: a cell with a replaced pass
        // is decided only with the added passes, so a run that adds none repeats no outliers.
        let mut replaced_cells = Vec::new();
        let plans = if extends {
            outlier_repeats(&combined, &baselines, margin(&combined))
        } else {
            Vec::new()
        };
        for plan in plans {
            let seed = first_seed + plan.pass as u64;
            let cases: Vec<String> = plan.cases.keys().cloned().collect();
            let again = runner.run(seed, &cases)?;
            let (replaced, judged) = judge_outliers(&combined, &baselines, &plan, seed, &again);
            replace_cases(&mut passes[plan.pass], &replaced, &again);
            for case in &replaced {
                replaced_cells.extend(plan.cases[case].iter().map(|(id, ..)| id.clone()));
            }
            repeats.extend(judged);
        }
        let combined = combine_passes(&passes);
        let mut decidable = decidable_cells(
            &combined,
            &baselines,
            margin(&combined),
            timing.extended_passes,
        );
        if extends {
            add_cells(&mut decidable, &replaced_cells);
        }
        if !decidable.is_empty() {
            let cells: usize = decidable.values().map(Vec::len).sum();
            println!(
                "==> [{}] {cells} unstable cells in {} cases get {} more passes",
                lab.name(),
                decidable.len(),
                timing.extended_passes - timing.passes
            );
            runner.method.extended_passes = timing.extended_passes;
            let arguments: Vec<String> = decidable
                .iter()
                .map(|(case, implementations)| case_argument(case, implementations))
                .collect();
            for pass in timing.passes..timing.extended_passes {
                passes.push(runner.run(first_seed + pass as u64, &arguments)?);
            }
        }
        Ok(())
    })();
    let mut records = combine_passes(&passes);
    records.extend(
        std::mem::take(&mut runner.case_seconds)
            .into_iter()
            .map(|(id, seconds)| Record::new(id, Metric::CaseSeconds, seconds)),
    );
    let baseline = lab.implementations()[0];
    runner.method.same_within = run_margin(&records, baseline, |id| single_threaded(lab, id));
    TimedPasses {
        method: runner.method,
        ran,
        records,
        repeats,
    }
}

/// Removes the binaries linked for another run's seeds, which must not stand in for this run's.
fn remove_stale_links(work: &Path) {
    let Ok(entries) = std::fs::read_dir(work) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("time-link-")
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `cells` added to the cases and implementations the added passes measure.
fn add_cells(decidable: &mut BTreeMap<String, Vec<String>>, cells: &[BenchId]) {
    for id in cells {
        let implementations = decidable.entry(case_of(id)).or_default();
        let name = id.cell_name();
        if !implementations.contains(&name) {
            implementations.push(name);
        }
    }
}

/// Runs each disturbed standard pass again whole with its seed and keeps the less disturbed of
/// the two.
fn repeat_disturbed(
    runner: &mut PassRunner<'_>,
    passes: &mut [Vec<Record>],
    repeats: &mut Vec<PassRepeat>,
) -> Result<()> {
    for (pass, first) in disturbed_passes(&combine_passes(passes)) {
        let seed = runner.method.first_seed + pass as u64;
        println!(
            "==> [{}] pass {} lost {:.1} % of its CPU time to the hypervisor: running it again",
            runner.run.lab.name(),
            pass + 1,
            first * 100.0
        );
        let again_records = runner.run(seed, &[])?;
        let again = steal_share(&again_records).unwrap_or(f64::INFINITY);
        let outcome = if again < first {
            passes[pass] = again_records;
            RepeatOutcome::Machine
        } else {
            RepeatOutcome::Mixed
        };
        repeats.push(PassRepeat {
            pass: pass + 1,
            seed,
            cases: Vec::new(),
            reason: RepeatReason::Disturbed {
                steal_share: first,
                again,
            },
            cells: Vec::new(),
            outcome,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! One pass of the wall-time stage ([`pass_main`]): the cells of every timed case opened at
//! seeded heap offsets, calibrated, and sampled in shuffled rounds.

use std::time::Instant;

use super::{Settle, calibrate, calibrate_runs, open_timed, parse_args, runnable};
use crate::args::exit_with_usage_error;
use crate::lab::{
    BenchCase, Lab, LatencyRecording, Selection, Timing, baselines, experiment, measures,
};
use crate::latency::Latencies;
use crate::record::{BenchId, Metric, Record, Role};
use crate::stats::median;

mod cell;
mod placement;

use cell::{Cell, Events, at_least_one_if_none};
use placement::Placement;

/// The cells a case measures in one pass: every selected Rust implementation its experiment
/// measures (the JVM designs are JMH's), and the reference cells of each baseline among them
/// (its A/A twin measured, its slowed twins derived from the twin's samples). Added passes
/// (`only`) measure just the cells they can still decide, beside their baselines (and a twin
/// whose slowed twins are among them).
struct CaseCells {
    measured: Vec<BenchId>,
    /// Each slowed twin with its share, derived from the twin of its implementation.
    slowed: Vec<(BenchId, u32)>,
}

fn case_cells(
    lab: &dyn Lab,
    selection: &Selection,
    case: &BenchCase,
    only: Option<&[String]>,
) -> Result<CaseCells, String> {
    let experiment = experiment(lab, &case.experiment)?;
    let chosen = |i: &&str| {
        selection.selects_implementation(i) && measures(lab, experiment, i) && runnable(lab, i)
    };
    let implementations: Vec<&str> = lab.implementations().into_iter().filter(chosen).collect();
    let mut measured: Vec<BenchId> = implementations.iter().map(|i| case.id(i)).collect();
    let mut slowed = Vec::new();
    let baselines = baselines(lab);
    for baseline in baselines
        .all()
        .iter()
        .filter(|b| implementations.contains(b))
    {
        for role in crate::record::reference_roles() {
            let id = case.id(baseline).with_role(role.clone());
            match role {
                Role::Slowed(percent) => slowed.push((id, percent)),
                _ => measured.push(id),
            }
        }
    }
    if let Some(only) = only {
        slowed.retain(|(id, _)| only.contains(&id.cell_name()));
        let needed = |id: &BenchId| {
            only.contains(&id.cell_name())
                || (id.role == Role::Twin
                    && slowed
                        .iter()
                        .any(|(s, _)| s.implementation == id.implementation))
        };
        let groups: Vec<&str> = measured
            .iter()
            .filter(|id| needed(id))
            .map(|id| baselines.of(&id.implementation))
            .collect();
        measured.retain(|id| {
            needed(id) || (id.is_design() && groups.contains(&id.implementation.as_str()))
        });
    }
    Ok(CaseCells { measured, slowed })
}

/// The records of one case in one pass ([`case_cells`]): the cells opened in a shuffled order with
/// spacers between them, calibrated, then sampled in `timing.rounds` rounds, each in a new
/// shuffled order; latencies as the experiment records them.
fn pass_case(
    lab: &'static dyn Lab,
    selection: &Selection,
    case: &BenchCase,
    timing: &Timing,
    placement: &mut Placement,
    only: Option<&[String]>,
) -> Result<Vec<Record>, String> {
    let experiment = experiment(lab, &case.experiment)?;
    let CaseCells {
        measured: mut ids,
        slowed,
    } = case_cells(lab, selection, case, only)?;
    placement.shuffle(&mut ids);
    let mut cells = open_cells(lab, case, ids, timing, placement)?;
    let in_samples = experiment.latency == LatencyRecording::InTimedSamples;
    let mut order: Vec<usize> = (0..cells.len()).collect();
    // One sample of every cell in `order`: kept as a round's (`round`; a cell whose calibration
    // run was kept has round 0's already), or only for its latencies. A failing cell ends the pass.
    let sample_all = |order: &[usize], cells: &mut [Cell], record: bool, round: Option<usize>| {
        for &i in order {
            if round.is_some_and(|r| cells[i].samples.len() > r) {
                continue;
            }
            let ns = cells[i].sample(record)?;
            if round.is_some() {
                cells[i].samples.push(ns);
            }
        }
        Ok::<(), String>(())
    };
    for round in 0..timing.rounds {
        placement.shuffle(&mut order);
        sample_all(&order, &mut cells, in_samples, Some(round))?;
    }
    if experiment.latency == LatencyRecording::ExtraSample {
        placement.shuffle(&mut order);
        sample_all(&order, &mut cells, true, None)?;
    }
    cell_records(lab, case, cells, &slowed, only)
}

/// Each cell opened (spacers between them) and calibrated. Every cell is calibrated, the reference
/// cells too: calibrating is also the warm-up, and a steady runner's state follows the work it
/// has done, so a twin warmed up any other way is no longer the baseline again (its A/A verdicts
/// then turn decisive: the run's false-positive count shows it). A fresh instance per sample leaves calibration nothing to warm up: a first run that
/// already lasts long enough is kept as the cell's first sample rather than run again (such a
/// lab's minimum is a whole load run, seconds where generation is slow).
fn open_cells(
    lab: &'static dyn Lab,
    case: &BenchCase,
    ids: Vec<BenchId>,
    timing: &Timing,
    placement: &mut Placement,
) -> Result<Vec<Cell>, String> {
    let experiment = experiment(lab, &case.experiment)?;
    let parameter = experiment
        .parameter(&case.parameter)
        .ok_or_else(|| format!("{case} is not a case of {}", experiment.name))?;
    let in_samples = experiment.latency == LatencyRecording::InTimedSamples;
    let settle = if experiment.fresh_per_sample {
        Settle::OnFirstRun
    } else {
        Settle::Scaled
    };
    let mut cells = Vec::with_capacity(ids.len());
    let mut kept_runs = Vec::with_capacity(ids.len());
    for id in ids {
        placement.spacer();
        let run = open_timed(lab, &id.implementation, case)?;
        let mut cell = Cell {
            id,
            run,
            ops: 0,
            samples: Vec::with_capacity(timing.rounds),
            latencies: Latencies::default(),
            events: Events::default(),
        };
        let (mut first_run, mut runs) = (None, 0);
        let calibrated = match settle {
            Settle::Scaled => {
                calibrate(&mut cell.run, experiment, parameter.min_ops, timing.sample)
            }
            Settle::OnFirstRun => calibrate_runs(
                |ops| {
                    let sample = cell.take(ops, in_samples)?;
                    let elapsed = sample.elapsed;
                    if runs == 0 {
                        first_run = Some(sample);
                    }
                    runs += 1;
                    Ok(elapsed)
                },
                experiment,
                parameter.min_ops,
                timing.sample,
                settle,
            ),
        };
        cell.ops = calibrated?;
        cells.push(cell);
        kept_runs.push(first_run.filter(|_| runs == 1));
    }
    // A baseline's reference cells do the baseline's own work per sample: calibrated apart, a
    // twin could land on another number of operations and amortise a concurrent sample's fixed
    // costs (spawning, joining) differently, a difference of work, not placement.
    let design_ops: Vec<(String, u64)> = cells
        .iter()
        .filter(|c| c.id.is_design())
        .map(|c| (c.id.implementation.clone(), c.ops))
        .collect();
    for cell in cells.iter_mut().filter(|c| !c.id.is_design()) {
        if let Some((_, ops)) = design_ops
            .iter()
            .find(|(i, _)| *i == cell.id.implementation)
        {
            cell.ops = *ops;
        }
    }
    // A kept calibration run counts only at the cell's final operations (a twin set to the
    // baseline's may have settled elsewhere).
    for (cell, kept_run) in cells.iter_mut().zip(kept_runs) {
        if let Some(sample) = kept_run.filter(|s| s.asked == cell.ops && timing.rounds > 0) {
            let ns = cell.keep(sample);
            cell.samples.push(ns);
        }
    }
    Ok(cells)
}

/// The records of a case's cells in one pass: each cell's median sample (and throughput), the
/// slowed twins from their twins' samples, latencies and the lab's events.
fn cell_records(
    lab: &dyn Lab,
    case: &BenchCase,
    cells: Vec<Cell>,
    slowed: &[(BenchId, u32)],
    only: Option<&[String]>,
) -> Result<Vec<Record>, String> {
    let experiment = experiment(lab, &case.experiment)?;
    let parameter = experiment
        .parameter(&case.parameter)
        .ok_or_else(|| format!("{case} is not a case of {}", experiment.name))?;
    // Aggregate throughput: every worker did `ops` operations.
    let workers = experiment.reports_throughput().then_some(parameter.workers);
    let mut records = Vec::new();
    let time_records = |id: &BenchId, ns: f64| {
        let ops_per_sec =
            workers.map(|w| Record::new(id.clone(), Metric::OpsPerSec, w as f64 * 1e9 / ns));
        std::iter::once(Record::new(id.clone(), Metric::NsPerOp, ns)).chain(ops_per_sec)
    };
    for cell in cells.into_iter().filter(|c| !c.samples.is_empty()) {
        let ns = median(&cell.samples);
        let id = cell.id.clone();
        if id.role == Role::Twin {
            let own = slowed
                .iter()
                .filter(|(s, _)| s.implementation == id.implementation);
            for (slowed, percent) in own {
                records.extend(time_records(
                    slowed,
                    slowed_twin_ns(&cell.samples, *percent),
                ));
            }
            // An added pass that measured the twin only for its slowed twins keeps it out.
            if only.is_some_and(|only| !only.contains(&id.cell_name())) {
                continue;
            }
        }
        records.extend(time_records(&id, ns));
        if experiment.latency != LatencyRecording::Off {
            records.extend(crate::record::latency_records(&id, &cell.latencies));
        }
        let Events {
            counts,
            ops,
            elapsed,
        } = cell.events;
        for (event, n) in counts {
            let calls = at_least_one_if_none(ops) * parameter.workers as f64;
            records.push(Record::new(
                id.clone(),
                Metric::EventsPer100Ops(event),
                n as f64 * 100.0 / calls,
            ));
            records.push(Record::new(
                id.clone(),
                Metric::EventsPerSec(event),
                n as f64 / elapsed.as_secs_f64(),
            ));
        }
    }
    Ok(records)
}

/// A slowed twin's value in a pass: the A/A twin's samples, each lengthened by `percent`, their
/// median. The twin is a second, independently placed run of the baseline, so its ratio to the
/// baseline varies across passes as a design's equal to the baseline would; lengthened, it is a
/// design that much slower with the same variation, and whether the run calls it slower is the
/// run's power to detect that difference. Derived rather than run (and spun) again: the same
/// distribution at no extra run, which on a lab whose sample is a whole load run halves the
/// baseline's share of the time.
fn slowed_twin_ns(twin_samples: &[f64], percent: u32) -> f64 {
    median(twin_samples) * (1.0 + f64::from(percent) / 100.0)
}

/// The id of the timer-overhead record of a pass that recorded latencies.
pub fn timer_overhead_id() -> BenchId {
    BenchId::new("latency-timer", "std-instant", "empty-op")
}

/// The id of the record of how long a pass spent on `case` ([`Metric::CaseSeconds`]): an
/// experiment of its own, so that no table of the case's experiment takes it for a design.
pub fn case_time_id(case: &BenchCase) -> BenchId {
    BenchId::new(CASE_TIME, &case.experiment, &case.parameter)
}

/// The experiment of [`case_time_id`]s; their implementation is the case's experiment.
pub const CASE_TIME: &str = "case-time";

/// `main` of a lab's `time` binary: one pass of the wall-time stage,
/// `[--seed N] [--out FILE] [--quick|--test] [NAME...]`. The seed shuffles the order of the
/// cases and of the cells in every round and sizes the heap spacers ([`Placement`]); the driver
/// runs several passes as separate processes, each also linked with its own code order and
/// started with its own environment size (stack offset), and takes verdicts across them
/// ([`crate::compare`]). Each record is the pass's median sample of one cell.
pub fn pass_main(lab: &'static dyn Lab) {
    let (mut args, selection) = parse_args(lab);
    // Run by hand (`cargo bench -p LAB [-- FILTER]`: no `--out`), a pass is a quick one and
    // prints a table for a person ([`super::printed`]).
    let by_hand = args.out.is_none();
    if by_hand && !args.test {
        args.quick = true;
    }
    let timing = lab.timing(args.mode());
    let disturbance = crate::process::Disturbance::start();
    let mut placement = Placement::new(args.seed);
    // `--case EXPERIMENT/PARAMETER[=CELL,…]`: the cases, each with the cells to measure beside
    // the baseline (every cell when none are named).
    let wanted: Vec<(String, Option<Vec<String>>)> = args
        .cases
        .iter()
        .map(|c| match c.split_once('=') {
            Some((case, cells)) => (
                case.to_owned(),
                Some(cells.split(',').map(str::to_owned).collect()),
            ),
            None => (c.clone(), None),
        })
        .collect();
    let only = |case: &BenchCase| {
        let name = case.to_string();
        wanted
            .iter()
            .find(|(c, _)| *c == name)
            .map(|(_, cells)| cells.as_deref())
    };
    let mut cases = crate::lab::cases(lab, |e, p| {
        e.is_timed()
            && selection.selects_case(e.name, &p.name)
            && (wanted.is_empty() || only(&BenchCase::new(e.name, &p.name)).is_some())
    });
    placement.shuffle(&mut cases);
    let mut records = Vec::new();
    let records_latency = cases.iter().any(|case| {
        experiment(lab, &case.experiment).is_ok_and(|e| e.latency != LatencyRecording::Off)
    });
    if records_latency {
        let overhead = crate::latency::timer_overhead(100_000);
        records.push(Record::new(
            timer_overhead_id(),
            Metric::TimerOverheadNs,
            overhead.quantile(0.5).unwrap_or(0) as f64,
        ));
    }
    for case in &cases {
        eprintln!("pass {}: {case}", args.seed);
        placement.reseed_for(args.seed, case);
        let cells = only(case).flatten();
        let started = Instant::now();
        let measured = pass_case(lab, &selection, case, &timing, &mut placement, cells)
            .unwrap_or_else(|e| exit_with_usage_error(&e));
        records.extend(measured);
        records.push(Record::new(
            case_time_id(case),
            Metric::CaseSeconds,
            started.elapsed().as_secs_f64(),
        ));
    }
    records.extend(disturbance.records());
    if by_hand {
        print!(
            "{}\n{}",
            super::printed::heading(lab, &records, args.test),
            super::printed::time_table(lab, &records).render()
        );
        return;
    }
    crate::record::emit_records(args.out.as_deref(), &records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}

#[cfg(test)]
mod tests;

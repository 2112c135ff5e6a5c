//! Answers founded on the JVM: a claim of a Java write-up reproduces when the write-up's own two
//! designs, run on the JVM here, go its way under the run's verdict rules. Beside that verdict,
//! as context: how each Rust model compares with its JVM original (its calibration), and the
//! best Rust design over the JVM's better arm, a ratio across runtimes, never a verdict.

use super::*;

/// How far a Rust model may be from its JVM original on a claim's metric, as model / original,
/// and still decide or explain that claim.
pub const MODEL_BAND: (f64, f64) = (0.67, 1.5);

/// How close two JVM counts (bytes per operation, retained bytes) must be to count as the same:
/// they carry the harness's own few bytes per run, here and in the run this one replaced.
const COUNT_TOLERANCE: f64 = 0.01;

/// The record of `implementation` on `claim`'s case and metric.
fn find<'a>(set: &'a ResultSet, claim: &Claim, implementation: &str) -> Option<&'a Record> {
    let metric = Metric::from_key(&claim.metric).ok()?;
    let id = BenchId::new(&claim.experiment, implementation, &claim.parameter);
    set.find(&id, metric)
}

/// `other` over `base`: the median per-pass ratio when both were timed in the same passes, else
/// the ratio of their values (infinite over a zero).
fn ratio(set: &ResultSet, base: &Record, other: &Record) -> f64 {
    if base.passes.is_some() && other.passes.is_some() {
        return compare_in(set, base, other).ratio;
    }
    match (base.value, other.value) {
        (0.0, 0.0) => 1.0,
        (0.0, _) => f64::INFINITY,
        (b, o) => o / b,
    }
}

fn format_ratio(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "∞×".to_owned();
    }
    let shown = format_number(ratio);
    // A ratio just outside the band must not read as its edge.
    let at_edge = [MODEL_BAND.0, MODEL_BAND.1]
        .iter()
        .any(|edge| shown == format_number(*edge));
    if at_edge && off(ratio) {
        format!("{ratio:.4}×")
    } else {
        format!("{shown}×")
    }
}

fn off(ratio: f64) -> bool {
    !(MODEL_BAND.0..=MODEL_BAND.1).contains(&ratio)
}

/// A model's value over its original's on `claim`, when both were measured.
fn model_ratio(set: &ResultSet, claim: &Claim, model: &Model) -> Option<f64> {
    let original = find(set, claim, &model.original)?;
    Some(ratio(set, original, find(set, claim, &model.model)?))
}

/// Why a run has no JVM figure for a claim.
fn not_measured(set: &ResultSet, claim: &Claim) -> String {
    match (&claim.unmeasurable, &set.environment.jvm) {
        (Some(why), _) => format!("cannot be measured: {why}"),
        (None, Some(Err(why))) => format!("not measured: {why}"),
        (None, _) => "not measured in this run".to_owned(),
    }
}

/// One claim judged on the JVM.
struct Judged {
    row: Vec<String>,
    outcome: Outcome,
    travel: Option<Travel>,
    /// The best Rust design's value over the JVM's better arm.
    best_ratio: Option<f64>,
}

/// The claim's row: the write-up's figure, the JVM here, the Rust models' calibration, the best Rust design,
/// and the answer.
fn judge_on_jvm(set: &ResultSet, side: &JvmSide, claim: &Claim) -> Judged {
    let metric = Metric::from_key(&claim.metric).expect("checked when parsed");
    let published = match measured_by(side, claim).filter(|_| claim.unmeasurable.is_none()) {
        Some(by) => format!("{}<br>{by}", published_cell(claim)),
        None => published_cell(claim),
    };
    let mut row = vec![claim.claim.clone(), published];
    let (old, new) = match (find(set, claim, &side.old), find(set, claim, &side.new)) {
        (Some(old), Some(new)) if claim.unmeasurable.is_none() => (old, new),
        _ => {
            let why = not_measured(set, claim);
            let (jvm, best) = if claim.unmeasurable.is_some() {
                ("—".to_owned(), "—".to_owned())
            } else {
                (why.clone(), best_rust(set, side, claim, None).0)
            };
            row.extend([jvm, "—".into(), best, why, "—".into()]);
            return Judged {
                row,
                outcome: Outcome::NotMeasured,
                travel: None,
                best_ratio: None,
            };
        }
    };
    let resolution = Resolution {
        absolute: claim.resolution,
        relative: Some(COUNT_TOLERANCE),
    };
    let c = at_resolution(compare_in(set, old, new), old, new, resolution);
    let direction = moved(metric, c.verdict);
    let want = claimed(claim);
    let (travel, travel_text) = pair_travel(set, (old, new), &c, resolution);
    let cell = with_jmh_error(set, pair_cell(metric, old, new, &c, want), old, new);
    row.push(against_published(cell, claim, old, new));
    row.push(models_cell(set, side, claim));
    let better = if metric.higher_is_better() == (new.value > old.value) {
        new
    } else {
        old
    };
    let (best, best_ratio) = best_rust(set, side, claim, Some(better));
    row.push(best);
    let threads = oversubscribed(set, side, claim);
    let (outcome, answer) = match direction {
        Some(d) if d == want => (
            Outcome::Reproduces,
            format!("**reproduces**{}", magnitude(claim, new.value / old.value)),
        ),
        _ if threads.is_some() => not_comparable(set, side, claim, threads.unwrap_or_default()),
        None => {
            let agreement = c.agreement.map_or(String::new(), |(a, of)| {
                format!(" ({a} of {of} passes agree)")
            });
            (
                Outcome::Unstable,
                format!("**{}** on the JVM here{agreement}", c.verdict.word()),
            )
        }
        Some(d) => explain(set, side, claim, d),
    };
    row.extend([answer, travel_text]);
    Judged {
        row,
        outcome,
        travel,
        best_ratio,
    }
}

/// How the effect measured here (`ratio`, new over old) compares with the write-up's, when the
/// two differ by more than half or double: "; the direction, at 4.7× the published effect".
fn magnitude(claim: &Claim, ratio: f64) -> String {
    let Some(published) = &claim.published else {
        return String::new();
    };
    let (theirs, ours) = (published.new / published.old - 1.0, ratio - 1.0);
    if theirs.abs() < 0.05 || !ours.is_finite() || ours * theirs <= 0.0 {
        return String::new();
    }
    let times = ours / theirs;
    if (0.5..=2.0).contains(&times) {
        String::new()
    } else {
        format!(
            ": the direction, at {} the published effect",
            format_ratio(times)
        )
    }
}

/// The thread count of the claim's JMH cell, when it is above this machine's cores.
fn oversubscribed(set: &ResultSet, side: &JvmSide, claim: &Claim) -> Option<usize> {
    let case = crate::lab::BenchCase::new(&claim.experiment, &claim.parameter);
    let threads = side.benchmarks.as_ref()?.cell(&case, &side.old)?.threads?;
    (threads > set.environment.cores).then_some(threads)
}

/// The answer of a claim that did not go the write-up's way on an oversubscribed shape: the
/// machine's, and the command a machine with a hardware thread per thread runs.
fn not_comparable(
    set: &ResultSet,
    side: &JvmSide,
    claim: &Claim,
    threads: usize,
) -> (Outcome, String) {
    let cores = set.environment.cores;
    (
        Outcome::NotComparable,
        format!(
            "**not comparable on {cores} cores**: its {threads} threads take turns on {cores} \
             cores, where the write-up's ran at once; on a machine with {threads} hardware \
             threads: `cargo xtask bench {} {} {} {}`",
            set.lab, side.old, side.new, claim.parameter
        ),
    )
}

/// The arm a JMH cell's `implementation` parameter names, when its benchmark takes one.
fn arm(cell: &crate::lab::JmhCell) -> Option<String> {
    cell.params
        .iter()
        .find(|(name, _)| name == "implementation")
        .map(|(_, value)| value.clone())
}

/// The benchmark's arms as its `implementation` parameter names them (`` (JMH `implementation`:
/// `oldProduction` → `production`)``), when one benchmark times both designs.
fn jmh_arms(side: &JvmSide) -> String {
    let arms = side.benchmarks.as_ref().and_then(|b| {
        let of = |design: &str| b.cells.iter().filter(|c| c.design == design).find_map(arm);
        Some((of(&side.old)?, of(&side.new)?))
    });
    match arms {
        Some((a, b)) => format!(", JMH `implementation` `{a}` → `{b}`"),
        None => String::new(),
    }
}

/// What measured the claim's two arms here: the JMH benchmark (`Class.method`, its parameters
/// but the arm's, and the arms where a parameter tells them apart), or JOL for a footprint.
fn measured_by(side: &JvmSide, claim: &Claim) -> Option<String> {
    let benchmarks = side.benchmarks.as_ref()?;
    let case = crate::lab::BenchCase::new(&claim.experiment, &claim.parameter);
    let weighed = |design: &str| {
        benchmarks.weighings.iter().any(|w| {
            w.experiment == claim.experiment && w.parameter == claim.parameter && w.design == design
        })
    };
    if weighed(&side.old) && weighed(&side.new) {
        return Some("JOL `GraphLayout.totalSize()`".to_owned());
    }
    let (old, new) = (
        benchmarks.cell(&case, &side.old)?,
        benchmarks.cell(&case, &side.new)?,
    );
    Some(
        // The arms a parameter tells apart are named once, above the table ([`jmh_arms`]).
        if old.benchmark == new.benchmark && arm(old).is_some() && arm(new).is_some() {
            old.label()
        } else {
            let method = |cell: &crate::lab::JmhCell| {
                cell.benchmark
                    .rsplit('.')
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            };
            format!("{} → `{}`", old.label(), method(new))
        },
    )
}

/// A count's cell with each arm's value over the write-up's figure for it (`÷ published 0.99× /
/// 1.02×`): JOL's and `-prof gc`'s counts do not depend on the machine, so they can match the
/// write-up's; only where that figure is at least one of its unit.
fn against_published(cell: String, claim: &Claim, old: &Record, new: &Record) -> String {
    let Some(published) = &claim.published else {
        return cell;
    };
    let bytes = match published.unit.as_str() {
        "B" | "B/op" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        _ => return cell,
    };
    if !matches!(old.metric, Metric::RetainedBytes | Metric::BytesPerOp) {
        return cell;
    }
    let over =
        |value: f64, figure: f64| (figure >= 1.0).then(|| format_ratio(value / (figure * bytes)));
    match (
        over(old.value, published.old),
        over(new.value, published.new),
    ) {
        (None, None) => cell,
        (a, b) => {
            let shown = |r: Option<String>| r.unwrap_or_else(|| "—".to_owned());
            format!("{cell}<br>÷ published {} / {}", shown(a), shown(b))
        }
    }
}

/// A pair's cell with JMH's error of each arm's time (`48.7 ± 1.2 ns → …`), where it has one.
fn with_jmh_error(set: &ResultSet, cell: String, old: &Record, new: &Record) -> String {
    let error = |r: &Record| set.find(&r.id, Metric::JmhErrorNs).map(|e| e.value);
    match (old.metric, error(old), error(new)) {
        (Metric::NsPerOp, Some(a), Some(b)) => format!(
            "{cell}<br>JMH error ±{} / ±{}",
            show(Metric::NsPerOp, a),
            show(Metric::NsPerOp, b)
        ),
        _ => cell,
    }
}

/// Each model's value over its original's on the claim, marked where it is off.
fn models_cell(set: &ResultSet, side: &JvmSide, claim: &Claim) -> String {
    let cells: Vec<String> = side
        .models
        .iter()
        .filter_map(|m| {
            let r = model_ratio(set, claim, m)?;
            let mark = if off(r) {
                " (off: decides nothing)"
            } else {
                ""
            };
            Some(format!("`{}` {}{mark}", m.model, format_ratio(r)))
        })
        .collect();
    if cells.is_empty() {
        "—".into()
    } else {
        cells.join("<br>")
    }
}

/// The best of the Rust designs on the claim, and its value over `jvm` (the JVM's better arm).
fn best_rust(
    set: &ResultSet,
    side: &JvmSide,
    claim: &Claim,
    jvm: Option<&Record>,
) -> (String, Option<f64>) {
    let metric = Metric::from_key(&claim.metric).expect("checked when parsed");
    let better = |a: &&Record, b: &&Record| {
        let order = a.value.total_cmp(&b.value);
        if metric.higher_is_better() {
            order.reverse()
        } else {
            order
        }
    };
    let best = side
        .rust
        .iter()
        .filter_map(|r| find(set, claim, r))
        .min_by(better);
    match best {
        None => ("—".into(), None),
        Some(best) => {
            let against = jvm.map(|j| ratio(set, j, best));
            let context = match (against, jvm) {
                // The header names the arm it is over: the JVM's better one, whose value is the
                // lower (or, for a rate, the higher) of the row's pair.
                (Some(r), Some(_)) => format!(" ({})", format_ratio(r)),
                _ => String::new(),
            };
            let cell = format!(
                "`{}` {}{context}",
                best.id.implementation,
                show(metric, best.value)
            );
            (cell, against)
        }
    }
}

/// The models a cause cites (in its text or its evidence).
fn models_cited<'a>(side: &'a JvmSide, claim: &Claim, cause: &Cause) -> Vec<&'a Model> {
    let cited = std::cell::RefCell::new(Vec::new());
    let note = |reference: &str| {
        if let Ok(Ref::Record(_, id)) = Ref::parse(reference, claim) {
            cited.borrow_mut().push(id.implementation);
        }
    };
    let in_text = |call: &Call| {
        call.args.iter().for_each(|a| note(a));
        Ok(String::new())
    };
    // A text that does not render cites nothing; the answers table reports why.
    let _ = template::render(&cause.text, &[], Some(&in_text));
    for e in &cause.evidence {
        std::iter::once(&e.value)
            .chain(&e.over)
            .for_each(|r| note(r));
    }
    let cited = cited.into_inner();
    side.models
        .iter()
        .filter(|m| cited.contains(&m.model))
        .collect()
}

/// A claim the JVM moved `direction` where the write-up did not: its cause, when one explains that
/// direction, its evidence holds, and no model it cites is off on the claim.
fn explain(
    set: &ResultSet,
    side: &JvmSide,
    claim: &Claim,
    direction: Direction,
) -> (Outcome, String) {
    let mut refused = Vec::new();
    for cause in claim
        .causes
        .iter()
        .filter(|c| c.explains.covers(Some(direction)))
    {
        let off_models: Vec<String> = models_cited(side, claim, cause)
            .into_iter()
            .filter_map(|m| {
                let r = model_ratio(set, claim, m)?;
                off(r).then(|| format!("`{}` is off by {} here", m.model, format_ratio(r)))
            })
            .collect();
        if !off_models.is_empty() {
            refused.push(format!("it rests on a model: {}", off_models.join(", ")));
            continue;
        }
        match cause_text(set, claim, cause) {
            Ok(text) => return (Outcome::Explained, format!("**differs**: {text}")),
            Err(e) => refused.push(format!("not borne out: {e}")),
        }
    }
    let why = refused
        .iter()
        .map(|r| format!(" (the stated cause {r})"))
        .collect::<String>();
    (
        Outcome::NotEstablished,
        format!("**differs — cause not established**{why}"),
    )
}

/// The columns of a JVM answers table.
fn answers_table(side: &JvmSide) -> Table {
    Table::new()
        .column("Claim", Align::Left)
        .column("Published (JMH, its machine)", Align::Right)
        .column(
            &format!("JVM here: `{}` → `{}`", side.old, side.new),
            Align::Right,
        )
        .column("Rust models ÷ their JVM originals", Align::Left)
        .column("Best Rust design (÷ the JVM's better arm)", Align::Left)
        .column("Answer", Align::Left)
        .column(TRAVEL_COLUMN, Align::Left)
}

pub(super) fn check(answers: &Answers, side: &JvmSide, set: &ResultSet) -> Checked {
    let mut claims_table = answers_table(side);
    let mut own_table = answers_table(side);
    let mut outcomes = Vec::new();
    let mut travel = Vec::new();
    let mut best_ratios = Vec::new();
    for claim in &answers.claims {
        let judged = judge_on_jvm(set, side, claim);
        if claim.own {
            own_table.row(judged.row);
            continue;
        }
        outcomes.push(judged.outcome);
        travel.push(judged.travel);
        best_ratios.extend(judged.best_ratio.filter(|r| r.is_finite()));
        claims_table.row(judged.row);
    }
    let count = |o: Outcome| outcomes.iter().filter(|x| **x == o).count();
    let not_measured = match count(Outcome::NotMeasured) {
        0 => String::new(),
        n => format!(", {n} not measured"),
    };
    let not_comparable = match count(Outcome::NotComparable) {
        0 => String::new(),
        n => format!(
            ", **{n} not comparable on {} cores**",
            set.environment.cores
        ),
    };
    let summary = format!(
        "{} claims of the write-up, decided by its own two designs on the JVM here (`{}` → \
         `{}`{}): **{} reproduce**, **{} differ with a cause measured in this run**, **{} differ \
         — cause not established**, **{} unstable**{not_comparable}{not_measured}.",
        outcomes.len(),
        side.old,
        side.new,
        jmh_arms(side),
        count(Outcome::Reproduces),
        count(Outcome::Explained),
        count(Outcome::NotEstablished),
        count(Outcome::Unstable),
    );
    let rust = if best_ratios.is_empty() {
        String::new()
    } else {
        let low = best_ratios.iter().copied().fold(f64::MAX, f64::min);
        let high = best_ratios.iter().copied().fold(f64::MIN, f64::max);
        format!(
            " What the Rust designs change, as a ratio across runtimes (context, never a \
             verdict): the best Rust design's value over the JVM's better arm is {}–{} (median \
             {}) on the {} claims both measured.",
            format_ratio(low),
            format_ratio(high),
            format_ratio(crate::stats::median(&best_ratios)),
            best_ratios.len()
        )
    };
    let own = if answers.claims.iter().any(|c| c.own) {
        format!(
            "\n\n### The lab's own questions (not in the write-up)\n\n{}",
            own_table.render()
        )
    } else {
        String::new()
    };
    let (calibrated, details) = calibration(answers, side, set);
    let measured = match &side.benchmarks {
        Some(b) => format!(
            "timed by JMH in benchmarks written for the workload of the write-up's own ({}) and \
             weighed by JOL",
            b.source
        ),
        None => "run on the JVM here".to_owned(),
    };
    let markdown = format!(
        "{}\n\n_Source: {}._ A claim reproduces when the write-up's two designs, {measured}, go \
         its way under this run's verdict rules (time: every pass agrees, a pass being one JMH \
         fork of each arm; counts: by value, within 1 %). A **differs** names its cause with \
         values measured in this run, shown only when its evidence holds, it explains the JVM's \
         direction, and no Rust model it cites is off on that claim.\n\n{summary}{rust}\n\n{}{own}\n\n{}",
        answers.question,
        answers.source,
        claims_table.render(),
        calibrated
    );
    Checked {
        outcomes,
        travel,
        markdown,
        details,
    }
}

/// Each Rust model over its JVM original on every claim's metric.
/// The models' calibration: a summary for the answers, the claim-by-claim table for the details.
fn calibration(answers: &Answers, side: &JvmSide, set: &ResultSet) -> (String, String) {
    let mut table = Table::new().column("Claim", Align::Left);
    for m in &side.models {
        table = table.column(&format!("`{}` ÷ `{}`", m.model, m.original), Align::Right);
    }
    let mut within = vec![(0, 0); side.models.len()];
    for claim in answers.claims.iter().filter(|c| c.unmeasurable.is_none()) {
        let mut row = vec![claim.claim.clone()];
        for (at, m) in side.models.iter().enumerate() {
            row.push(match model_ratio(set, claim, m) {
                Some(r) => {
                    within[at].1 += 1;
                    if off(r) {
                        format!("**{} off**", format_ratio(r))
                    } else {
                        within[at].0 += 1;
                        format_ratio(r)
                    }
                }
                None => "—".into(),
            });
        }
        table.row(row);
    }
    let mut totals = vec!["within the band".to_owned()];
    totals.extend(within.iter().map(|(k, n)| format!("{k} of {n}")));
    table.row(totals);
    let band = format!(
        "{}–{}",
        format_ratio(MODEL_BAND.0),
        format_ratio(MODEL_BAND.1)
    );
    let summary: Vec<String> = side
        .models
        .iter()
        .zip(&within)
        .map(|(m, (k, n))| format!("`{}` on {k} of {n} claims", m.model))
        .collect();
    let main = format!(
        "### The Rust models against their JVM originals\n\nWithin {band} of their originals: \
         {}. A model outside the band on a claim may not decide or explain it: its column above \
         says **off: decides nothing**, and a cause citing it is refused; claim by claim in the details.\n\n\
         **What the lab decided.** {}",
        summary.join(", "),
        side.decision
    );
    let details = format!(
        "## The Rust models against their JVM originals\n\nEach cell is a Rust model's value \
         over its Java original's on the claim's case and metric (wall time: the median per-pass \
         ratio, both measured in the same passes). A model outside {band} of its original there \
         may not decide or explain that claim.\n\n{}\n",
        table.render()
    );
    (main, details)
}

/// The paragraph a report with a JVM side opens with: what reproduces on the JVM here, what the
/// Rust designs add, what this machine cannot show.
pub(super) fn verdict_paragraph(answers: &Answers, set: &ResultSet) -> Option<String> {
    let side = answers.jvm.as_ref()?;
    let claims: Vec<&Claim> = answers.claims.iter().filter(|c| !c.own).collect();
    let judged: Vec<(Outcome, &Claim, Option<Travel>)> = claims
        .iter()
        .map(|c| {
            let j = judge_on_jvm(set, side, c);
            (j.outcome, *c, j.travel)
        })
        .collect();
    let runtime = match &set.environment.jvm {
        Some(Ok(run)) => run.short_name(),
        Some(Err(why)) => {
            return Some(format!(
                "**Verdict.** The JVM was not measured in this run ({why}): no claim of the \
                 write-up is decided."
            ));
        }
        None => "the JVM".to_owned(),
    };
    let count = |o: Outcome| judged.iter().filter(|(x, ..)| *x == o).count();
    let unmeasurable = claims.iter().filter(|c| c.unmeasurable.is_some()).count();
    let beyond = match unmeasurable {
        0 => String::new(),
        n => format!(" ({n} more a data-structure lab cannot measure)"),
    };
    let differing: Vec<&str> = judged
        .iter()
        .filter(|(o, ..)| matches!(o, Outcome::Explained | Outcome::NotEstablished))
        .map(|(_, c, _)| c.claim.as_str())
        .collect();
    let differ = match differing.as_slice() {
        [] => String::new(),
        [one] => format!("; 1 differs ({one})"),
        [first, rest @ ..] => format!(
            "; {} differ ({first}, and {} more)",
            differing.len(),
            rest.len()
        ),
    };
    let unstable = match count(Outcome::Unstable) {
        0 => String::new(),
        n => format!("; {n} unstable"),
    };
    let not_comparable = match count(Outcome::NotComparable) {
        0 => String::new(),
        n => format!(
            "; {n} not comparable on {} cores (more threads than cores)",
            set.environment.cores
        ),
    };
    let measurable = judged.len() - unmeasurable;
    let claims = if measurable == 1 { "claim" } else { "claims" };
    let travel: Vec<Option<Travel>> = judged.iter().map(|(.., t)| *t).collect();
    let reproducing = count(Outcome::Reproduces);
    Some(format!(
        "**Verdict.** On the JVM here ({runtime}, {} cores), {reproducing} of the write-up's \
         {measurable} {claims} {}{differ}{unstable}{not_comparable}{beyond}.{} {} {}",
        set.environment.cores,
        reproduce_verb(reproducing),
        travel_sentence(set, &travel),
        fill_measured(&side.adds, set, &[]),
        fill_measured(&side.cannot_show, set, &[])
    ))
}

//! Paired, interleaved timing of two implementations: A, B, B, A, A, B, … so that drift on a noisy
//! shared machine hits both sides alike, and the comparison is the distribution of per-pair
//! ratios rather than two medians taken minutes apart.

use crate::record::{BenchId, Metric, Record, Role, RunMode};
use crate::stats::{MedianEstimate, median, median_estimate};

/// Rounds per case and pairs per round. Each round measures fresh instances (new maps, or new
/// processes across revisions), so the interval covers how the two sides land in memory, not
/// only the noise within one placement: an A/A run across two processes showed differences of
/// −5 % to +44 % that one placement's pairs called significant.
pub fn rounds_for(mode: RunMode) -> (usize, usize) {
    match mode {
        RunMode::Smoke => (6, 1),
        RunMode::Quick => (6, 4),
        RunMode::Full => (12, 5),
    }
}

/// The outcome of [`interleave`]: each side's ns/op and the per-pair ratio B / A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedEstimate {
    pub a: MedianEstimate,
    pub b: MedianEstimate,
    pub ratio: MedianEstimate,
    pub pairs: usize,
}

/// Raw samples (ns/op) of one round of interleaved pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairedSamples {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

/// Takes `pairs` pairs of one `a` sample and one `b` sample each, alternating which goes first
/// (A, B, B, A, …). Each closure returns one sample in ns/op.
pub fn interleave(
    pairs: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> PairedSamples {
    let mut samples = PairedSamples::default();
    for pair in 0..pairs {
        let (x, y) = if pair % 2 == 0 {
            let x = a();
            (x, b())
        } else {
            let y = b();
            (a(), y)
        };
        samples.a.push(x);
        samples.b.push(y);
    }
    samples
}

/// Which side of a paired comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairSide {
    A,
    B,
}

/// `rounds` rounds of freshly opened sides, each [`interleave`]d for `pairs` pairs: the one loop of
/// a paired comparison, in one process or across two builds. The order in which the sides are
/// opened alternates too (A first in even rounds, B first in odd ones), so opening second, after
/// the other side warmed the caches or the allocator, falls to both alike. `sample` takes one
/// sample of an opened side; an error opening either side ends the rounds.
pub fn run_rounds<S, E>(
    rounds: usize,
    pairs: usize,
    mut open: impl FnMut(PairSide) -> Result<S, E>,
    sample: impl Fn(&mut S) -> f64,
) -> Result<Vec<PairedSamples>, E> {
    let mut samples = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let (mut a, mut b) = if round % 2 == 0 {
            let a = open(PairSide::A)?;
            (a, open(PairSide::B)?)
        } else {
            let b = open(PairSide::B)?;
            (open(PairSide::A)?, b)
        };
        samples.push(interleave(pairs, || sample(&mut a), || sample(&mut b)));
    }
    Ok(samples)
}

/// Estimates from rounds of pairs: per round the median of A, of B and of the per-pair ratios
/// B / A; then the median of those round medians with its 95 % interval across rounds. `None`
/// with fewer than 6 rounds or an empty round.
pub fn estimate_rounds(rounds: &[PairedSamples]) -> Option<PairedEstimate> {
    if rounds
        .iter()
        .any(|r| r.a.is_empty() || r.a.len() != r.b.len())
    {
        return None;
    }
    let per_round = |side: fn(&PairedSamples) -> Vec<f64>| -> Vec<f64> {
        rounds.iter().map(|r| median(&side(r))).collect()
    };
    Some(PairedEstimate {
        a: median_estimate(&per_round(|r| r.a.clone()))?,
        b: median_estimate(&per_round(|r| r.b.clone()))?,
        ratio: median_estimate(&per_round(|r| {
            r.a.iter().zip(&r.b).map(|(a, b)| b / a).collect()
        }))?,
        pairs: rounds.iter().map(|r| r.a.len()).sum(),
    })
}

/// The role B's records carry: B itself, or its A/A twin when A and B are the same
/// implementation (an A/A run, which shows the noise floor).
pub fn b_side_role(a: &str, b: &str) -> Role {
    if a == b { Role::Twin } else { Role::Design }
}

/// Records for one paired case: each side's ns/op and the ratio B / A, all with their 95 %
/// intervals.
pub fn paired_records(
    experiment: &str,
    a: &str,
    b: &str,
    parameter: &str,
    estimate: &PairedEstimate,
) -> Vec<Record> {
    let record = |implementation: &str, role: Role, metric: Metric, e: &MedianEstimate| {
        Record::new(
            BenchId::new(experiment, implementation, parameter).with_role(role),
            metric,
            e.median,
        )
        .with_interval(e.interval)
    };
    vec![
        record(a, Role::Design, Metric::NsPerOp, &estimate.a),
        record(b, b_side_role(a, b), Metric::NsPerOp, &estimate.b),
        record(
            b,
            Role::RatioTo(a.to_owned()),
            Metric::PairedRatio,
            &estimate.ratio,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_open_fresh_sides_in_alternating_order_and_stop_at_an_error() {
        let opened = std::cell::RefCell::new(Vec::new());
        let open = |side| {
            opened.borrow_mut().push(side);
            Ok::<_, String>(if side == PairSide::A { 1.0 } else { 2.0 })
        };
        let samples = run_rounds(3, 2, open, |s: &mut f64| *s).unwrap();
        use PairSide::{A, B};
        assert_eq!(*opened.borrow(), [A, B, B, A, A, B]);
        assert_eq!(samples.len(), 3);
        assert!(
            samples
                .iter()
                .all(|s| s.a == [1.0, 1.0] && s.b == [2.0, 2.0])
        );
        let mut round = 0;
        let failing = run_rounds(
            4,
            1,
            |side| {
                round += usize::from(side == PairSide::A);
                if round == 2 { Err("gone") } else { Ok(0.0) }
            },
            |s: &mut f64| *s,
        );
        assert_eq!(failing.unwrap_err(), "gone");
    }

    #[test]
    fn interleaving_alternates_order() {
        let calls = std::cell::RefCell::new(Vec::new());
        let samples = interleave(
            4,
            || {
                calls.borrow_mut().push('a');
                10.0
            },
            || {
                calls.borrow_mut().push('b');
                20.0
            },
        );
        assert_eq!(calls.into_inner(), ['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
        assert_eq!((samples.a.len(), samples.b.len()), (4, 4));
    }

    #[test]
    fn rounds_are_summarised_by_their_medians_and_the_interval_spans_rounds() {
        // B is twice A in every pair, but the rounds sit at different levels (placements).
        let rounds: Vec<PairedSamples> = (1..=7)
            .map(|level| PairedSamples {
                a: vec![f64::from(level); 3],
                b: vec![2.0 * f64::from(level), 2.0 * f64::from(level), 100.0],
            })
            .collect();
        let e = estimate_rounds(&rounds).unwrap();
        assert_eq!(
            e.ratio.median, 2.0,
            "one outlier pair per round does not move it"
        );
        assert_eq!(e.a.median, 4.0);
        assert!(e.a.interval.lower < 4.0 && e.a.interval.upper > 4.0);
        assert_eq!(e.pairs, 21);
        assert!(
            estimate_rounds(&rounds[..5]).is_none(),
            "fewer than 6 rounds"
        );
        let mut uneven = rounds.clone();
        uneven[0].b.pop();
        assert!(estimate_rounds(&uneven).is_none());
    }
}

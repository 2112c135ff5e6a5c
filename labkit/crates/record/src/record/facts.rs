//! The one table of metric facts every renderer reads: unit, column header, how values print,
//! which way is better and the words a verdict uses.

use super::Metric;

/// What a metric's values are, for printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Printed in the largest unit that keeps them ≥ 1 (`1.25 ms`).
    Nanoseconds,
    /// Printed in binary units (`2.13 MiB`).
    Bytes,
    /// A plain number followed by the unit.
    Count,
}

/// The facts of one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    pub unit: &'static str,
    /// The header of its column in a comparison table.
    pub column: &'static str,
    /// How a tally or a sentence names it.
    pub label: &'static str,
    pub quantity: Quantity,
    /// Whether a table cell prints scaled with its unit (`1.25 ms`) rather than as a plain number
    /// under the unit in its header (ns/op: columns of nanoseconds read best unscaled).
    pub scaled_in_tables: bool,
    /// Whether a larger value is better (throughput) rather than worse (cost). A lab's events are
    /// neither: their verdicts say "fewer" or "more".
    pub higher_is_better: bool,
    /// The verdict's words for better and for worse than the baseline.
    pub better: &'static str,
    pub worse: &'static str,
    /// Whether it is a cost per operation that adds up (time, instructions), so that a design's
    /// value less the harness floor's is the design's own cost ([`crate::record::FLOOR`]).
    pub net_of_floor: bool,
}

const TIME: (&str, &str) = ("faster", "slower");
const LATENCY: (&str, &str) = ("lower", "higher");
const THROUGHPUT: (&str, &str) = ("higher", "lower");
const EVENTS: (&str, &str) = ("fewer", "more");
const AMOUNT: (&str, &str) = ("less", "more");

const fn facts(
    unit: &'static str,
    quantity: Quantity,
    words: (&'static str, &'static str),
) -> Facts {
    Facts {
        unit,
        column: unit,
        label: unit,
        quantity,
        scaled_in_tables: !matches!(quantity, Quantity::Count),
        higher_is_better: false,
        better: words.0,
        worse: words.1,
        net_of_floor: false,
    }
}

impl Metric {
    /// This metric's row of the table.
    pub fn facts(self) -> Facts {
        use Quantity::{Bytes, Count, Nanoseconds};
        let latency = |label| Facts {
            label,
            ..facts("ns", Nanoseconds, LATENCY)
        };
        match self {
            Self::NsPerOp => Facts {
                scaled_in_tables: false,
                net_of_floor: true,
                ..facts("ns/op", Nanoseconds, TIME)
            },
            Self::JmhErrorNs => Facts {
                column: "JMH error (99.9 %)",
                scaled_in_tables: false,
                ..facts("ns/op", Nanoseconds, AMOUNT)
            },
            Self::OpsPerSec => Facts {
                higher_is_better: true,
                ..facts("ops/s", Count, THROUGHPUT)
            },
            Self::InstructionsPerOp => Facts {
                net_of_floor: true,
                ..facts("instructions/op", Count, TIME)
            },
            Self::InstructionsIn(_) => facts("instructions/op", Count, AMOUNT),
            Self::EstimatedCyclesPerOp => Facts {
                column: "est. cycles/op (model)",
                net_of_floor: true,
                ..facts("est. cycles/op", Count, TIME)
            },
            Self::AllocsPerOp => facts("allocs/op", Count, AMOUNT),
            Self::LargeAllocsPerOp => facts("large allocs/op", Count, AMOUNT),
            Self::BytesPerOp => facts("B/op", Count, AMOUNT),
            Self::RetainedBytes => Facts {
                column: "retained",
                ..facts("B", Bytes, AMOUNT)
            },
            Self::RetainedUsableBytes => Facts {
                column: "retained (malloc usable)",
                ..facts("B", Bytes, AMOUNT)
            },
            Self::PeakHeapBytes | Self::PeakRssBytes => facts("B", Bytes, AMOUNT),
            Self::PairedRatio | Self::Ratio => facts("×", Count, AMOUNT),
            Self::MeanNs => facts("ns", Nanoseconds, TIME),
            Self::LatencyP50Ns => latency("p50 latency"),
            Self::LatencyP90Ns => latency("p90 latency"),
            Self::LatencyP95Ns => latency("p95 latency"),
            Self::LatencyP99Ns => latency("p99 latency"),
            Self::LatencyP999Ns => latency("p99.9 latency"),
            Self::LatencyMaxNs => latency("max latency"),
            Self::TimerOverheadNs => facts("ns", Count, AMOUNT),
            Self::LatencyHistogram => facts("ops recorded", Count, AMOUNT),
            Self::CpuNsPerOp => facts("CPU ns/op", Nanoseconds, AMOUNT),
            Self::EventsPer100Ops(_) => facts("per 100 ops", Count, EVENTS),
            Self::EventsPerSec(_) => facts("per s", Count, EVENTS),
            Self::PassDisturbance(_) => facts("per pass", Count, AMOUNT),
            Self::CaseSeconds => facts("s", Count, AMOUNT),
        }
    }

    pub fn unit(self) -> &'static str {
        self.facts().unit
    }

    /// Whether a larger value is better ([`Facts::higher_is_better`]).
    pub fn higher_is_better(self) -> bool {
        self.facts().higher_is_better
    }
}

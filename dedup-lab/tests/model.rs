//! Model-based property test: random operation sequences drive every implementation and a plain
//! sequential model of Pulsar's semantics, by sequence id and by replicated source position;
//! every answer and every watermark must match.

use std::collections::HashMap;

use dedup_lab::{
    DupStatus, ImplementationVisitor, Position, SequenceBatch, SequenceDedup,
    for_each_implementation,
};
use proptest::prelude::*;

const PRODUCERS: usize = 3;

#[derive(Debug, Clone)]
enum Op {
    Admit {
        producer: usize,
        low: u64,
        span: u64,
    },
    RecordPersisted {
        producer: usize,
        id: u64,
    },
    /// A replicated message at (ledger, entry) of its source cluster.
    AdmitReplicated {
        producer: usize,
        ledger: u64,
        entry: u64,
    },
    RecordReplicatedPersisted {
        producer: usize,
        ledger: u64,
        entry: u64,
    },
    ResetPushedToPersisted,
    Purge {
        producer: usize,
    },
    /// A second connection for the same name replaces the caller's handle.
    Reconnect {
        producer: usize,
    },
    /// The caller drops its handle; its next operation connects again. A purge while
    /// disconnected may free the producer's state for another producer to reuse.
    Disconnect {
        producer: usize,
    },
    /// The JMH shared case: pushed + 1 (0 for none) in one call.
    Increment {
        producer: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..PRODUCERS, 0..24u64, 0..4u64)
            .prop_map(|(producer, low, span)| Op::Admit { producer, low, span }),
        2 => (0..PRODUCERS, 0..24u64).prop_map(|(producer, id)| Op::RecordPersisted { producer, id }),
        // Few ledgers and entries, so positions collide and cross ledgers often.
        4 => (0..PRODUCERS, 0..3u64, 0..6u64)
            .prop_map(|(producer, ledger, entry)| Op::AdmitReplicated { producer, ledger, entry }),
        2 => (0..PRODUCERS, 0..3u64, 0..6u64).prop_map(|(producer, ledger, entry)| {
            Op::RecordReplicatedPersisted { producer, ledger, entry }
        }),
        1 => Just(Op::ResetPushedToPersisted),
        1 => (0..PRODUCERS).prop_map(|producer| Op::Purge { producer }),
        1 => (0..PRODUCERS).prop_map(|producer| Op::Reconnect { producer }),
        1 => (0..PRODUCERS).prop_map(|producer| Op::Disconnect { producer }),
        2 => (0..PRODUCERS).prop_map(|producer| Op::Increment { producer }),
    ]
}

/// A producer's watermarks: pushed and persisted ids, pushed and persisted positions.
type Marks = (Option<u64>, Option<u64>, Option<Position>, Option<Position>);

/// What a step returned: an admission's answer, or the id an increment installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Status(DupStatus),
    Id(u64),
}

/// What one step showed: its answer (if any) and every producer's watermarks after it.
type Observation = (Option<Answer>, Vec<Marks>);

fn position(ledger: u64, entry: u64) -> Position {
    Position::new(ledger, entry).unwrap()
}

fn name(producer: usize) -> String {
    format!("p{producer}")
}

/// The oracle: Pulsar's `isDuplicateNormal` and friends, written as directly as possible.
#[derive(Default)]
struct Model {
    pushed: HashMap<String, u64>,
    persisted: HashMap<String, u64>,
    /// Positions as (ledger, entry) tuples, whose order is the lexicographic one.
    repl_pushed: HashMap<String, (u64, u64)>,
    repl_persisted: HashMap<String, (u64, u64)>,
}

impl Model {
    fn step(&mut self, op: &Op) -> Option<Answer> {
        if let Op::Increment { producer } = *op {
            let next = self.pushed.get(&name(producer)).map_or(0, |id| id + 1);
            self.pushed.insert(name(producer), next);
            return Some(Answer::Id(next));
        }
        self.admission(op).map(Answer::Status)
    }

    fn admission(&mut self, op: &Op) -> Option<DupStatus> {
        match *op {
            Op::Admit {
                producer,
                low,
                span,
            } => {
                let (key, high) = (name(producer), low + span);
                match self.pushed.get(&key) {
                    Some(&last) if low <= last => match self.persisted.get(&key) {
                        Some(&persisted) if low <= persisted => Some(DupStatus::Dup),
                        _ => Some(DupStatus::Unknown),
                    },
                    _ => {
                        self.pushed.insert(key, high);
                        Some(DupStatus::NotDup)
                    }
                }
            }
            Op::RecordPersisted { producer, id } => {
                self.persisted.insert(name(producer), id);
                None
            }
            Op::AdmitReplicated {
                producer,
                ledger,
                entry,
            } => {
                let (key, at) = (name(producer), (ledger, entry));
                match self.repl_pushed.get(&key) {
                    Some(&last) if at <= last => match self.repl_persisted.get(&key) {
                        Some(&persisted) if at <= persisted => Some(DupStatus::Dup),
                        _ => Some(DupStatus::Unknown),
                    },
                    _ => {
                        self.repl_pushed.insert(key, at);
                        Some(DupStatus::NotDup)
                    }
                }
            }
            Op::RecordReplicatedPersisted {
                producer,
                ledger,
                entry,
            } => {
                self.repl_persisted.insert(name(producer), (ledger, entry));
                None
            }
            Op::ResetPushedToPersisted => {
                self.pushed = self.persisted.clone();
                self.repl_pushed = self.repl_persisted.clone();
                None
            }
            Op::Purge { producer } => {
                self.pushed.remove(&name(producer));
                self.persisted.remove(&name(producer));
                self.repl_pushed.remove(&name(producer));
                self.repl_persisted.remove(&name(producer));
                None
            }
            Op::Reconnect { .. } | Op::Disconnect { .. } | Op::Increment { .. } => None,
        }
    }

    fn watermarks(&self) -> Vec<Marks> {
        let at = |marks: &HashMap<String, (u64, u64)>, p| {
            marks.get(&name(p)).map(|&(l, e)| position(l, e))
        };
        (0..PRODUCERS)
            .map(|p| {
                (
                    self.pushed.get(&name(p)).copied(),
                    self.persisted.get(&name(p)).copied(),
                    at(&self.repl_pushed, p),
                    at(&self.repl_persisted, p),
                )
            })
            .collect()
    }
}

/// The caller's handle on `producer`, connected again if it was dropped.
fn held<'h, D: SequenceDedup>(
    dedup: &D,
    handles: &'h mut [Option<D::Producer>],
    producer: usize,
) -> &'h D::Producer {
    handles[producer].get_or_insert_with(|| dedup.connect(&name(producer)))
}

fn run_implementation<D: SequenceDedup>(ops: &[Op]) -> Vec<Observation> {
    let dedup = D::default();
    let mut handles: Vec<Option<D::Producer>> = (0..PRODUCERS)
        .map(|p| Some(dedup.connect(&name(p))))
        .collect();
    ops.iter()
        .map(|op| {
            let answer = match *op {
                Op::Admit {
                    producer,
                    low,
                    span,
                } => {
                    let batch = SequenceBatch::new(low, low + span).unwrap();
                    let status = dedup.admit(held(&dedup, &mut handles, producer), batch);
                    Some(Answer::Status(status))
                }
                Op::RecordPersisted { producer, id } => {
                    let handle = held(&dedup, &mut handles, producer);
                    dedup.record_persisted(handle, SequenceBatch::single(id).unwrap());
                    None
                }
                Op::AdmitReplicated {
                    producer,
                    ledger,
                    entry,
                } => Some(Answer::Status(dedup.admit_replicated(
                    held(&dedup, &mut handles, producer),
                    position(ledger, entry),
                ))),
                Op::RecordReplicatedPersisted {
                    producer,
                    ledger,
                    entry,
                } => {
                    let handle = held(&dedup, &mut handles, producer);
                    dedup.record_replicated_persisted(handle, position(ledger, entry));
                    None
                }
                Op::ResetPushedToPersisted => {
                    dedup.reset_pushed_to_persisted();
                    None
                }
                Op::Purge { producer } => {
                    dedup.purge(&name(producer));
                    None
                }
                Op::Reconnect { producer } => {
                    handles[producer] = Some(dedup.connect(&name(producer)));
                    None
                }
                Op::Disconnect { producer } => {
                    handles[producer] = None;
                    None
                }
                Op::Increment { producer } => {
                    let handle = held(&dedup, &mut handles, producer);
                    Some(Answer::Id(dedup.increment_pushed(handle)))
                }
            };
            let marks = (0..PRODUCERS)
                .map(|p| {
                    (
                        dedup.highest_pushed(&name(p)),
                        dedup.highest_persisted(&name(p)),
                        dedup.highest_replicated_pushed(&name(p)),
                        dedup.highest_replicated_persisted(&name(p)),
                    )
                })
                .collect();
            (answer, marks)
        })
        .collect()
}

struct AgreesWithModel<'a> {
    ops: &'a [Op],
    expected: Vec<Observation>,
}

impl ImplementationVisitor for AgreesWithModel<'_> {
    fn visit<D: SequenceDedup>(&mut self) {
        let actual = run_implementation::<D>(self.ops);
        for (step, (got, want)) in actual.iter().zip(&self.expected).enumerate() {
            assert_eq!(
                got,
                want,
                "{} diverges at step {step} ({:?})",
                D::NAME,
                self.ops[step]
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_implementation_agrees_with_the_model(ops in proptest::collection::vec(op(), 1..80)) {
        let mut model = Model::default();
        let expected = ops.iter().map(|op| (model.step(op), model.watermarks())).collect();
        for_each_implementation(&mut AgreesWithModel { ops: &ops, expected });
    }
}

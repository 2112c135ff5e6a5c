//! How `striped-window` puts what it gathered from its stripes back in (ledger, entry) order:
//! each stripe's ordered runs are copied whole into one buffer, then merged by rows, or, when
//! they are few, sorted by key. Described in [`super`].

use super::{STRIPES, join};
use crate::PendingAck;
use crate::implementations::dense_window::Runs;
use crate::shared::Buffer;

/// A stripe's run of consecutive ids (ids within the stripe): entries `first ..` of `ledger`,
/// held in the gathered slots from where the run before it ended (or 0) up to `end`,
/// `PendingAck::ABSENT` for a hole (only when `holes`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    ledger: u64,
    first: u64,
    end: usize,
    holes: bool,
}

/// Where the stripes' runs go: each stripe's slices are copied whole (a ring's prefix is one
/// `memcpy`), its runs after the previous stripe's, so one stripe's slots are contiguous.
pub(super) struct Gather<'a> {
    pub(super) slots: &'a mut Vec<PendingAck>,
    pub(super) runs: &'a mut Vec<Run>,
}

impl Runs for Gather<'_> {
    #[inline]
    fn run(&mut self, ledger: u64, first: u64, slots: &[PendingAck], holes: bool) -> usize {
        if slots.is_empty() {
            return 0;
        }
        self.slots.extend_from_slice(slots);
        let end = self.slots.len();
        self.runs.push(Run {
            ledger,
            first,
            end,
            holes,
        });
        match holes {
            true => slots
                .iter()
                .filter(|&&ack| ack != PendingAck::ABSENT)
                .count(),
            false => slots.len(),
        }
    }

    fn one(&mut self, ledger: u64, entry: u64, ack: PendingAck) {
        self.run(ledger, entry, &[ack], false);
    }
}

/// The slots and runs a cleanup or scan copies out, kept together as one spare buffer (one lock
/// to take it, not two).
#[derive(Default)]
pub(super) struct Gathered {
    pub(super) slots: Vec<PendingAck>,
    pub(super) runs: Vec<Run>,
    /// A few entries' merge keys, sorted instead of merged ([`SORTED_UP_TO`]).
    pub(super) keyed: Vec<(u128, PendingAck)>,
}

impl Buffer for Gathered {
    fn clear(&mut self) {
        self.slots.clear();
        self.runs.clear();
        self.keyed.clear();
    }
    fn capacity(&self) -> usize {
        self.slots.capacity().max(self.runs.capacity())
    }
}

/// Up to this many gathered slots are put in order by a sort of their keys rather than by the
/// merge: the merge's cost per stripe (16 cursors set up and stepped) is more than a sort of a
/// few dozen entries (a cleanup of 20 entries of a 1k-entry ledger cost 1.9× the time of an
/// earlier gather-and-sort design with the merge alone).
pub const SORTED_UP_TO: usize = 64;

/// Hands on the few gathered entries in ascending (ledger, entry) order through a sort of their
/// full keys, in `keyed`. Where each stripe handed over one run at most (a cleanup within one
/// ledger), the keys are taken a row at a time across the stripes, which is their order in a
/// window, so the sort (an insertion sort at this size) has little to move; otherwise stripe
/// after stripe.
pub(super) fn sort_few(
    slots: &[PendingAck],
    runs: &[Run],
    ends: &RunEnds,
    keyed: &mut Vec<(u128, PendingAck)>,
    visit: &mut impl FnMut(u64, u64, PendingAck),
) {
    let mut first_run = 0;
    let one_run_each = ends.iter().all(|&runs_end| {
        let one = runs_end - first_run <= 1;
        first_run = runs_end;
        one
    });
    let mut push = |ledger, stripe, id: u64, ack| {
        if ack != PendingAck::ABSENT {
            keyed.push((key(ledger, join(stripe, id)), ack));
        }
    };
    let (mut first_run, mut at) = (0, 0);
    if one_run_each {
        let columns = ends.map(|runs_end| {
            let run = runs[first_run..runs_end].first();
            first_run = runs_end;
            run.map_or((0, 0, &slots[..0]), |run| {
                let column = (run.ledger, run.first, &slots[at..run.end]);
                at = run.end;
                column
            })
        });
        let rows = columns.iter().map(|c| c.2.len()).max().unwrap_or(0);
        for row in 0..rows {
            for (stripe, &(ledger, first, column)) in columns.iter().enumerate() {
                if let Some(&ack) = column.get(row) {
                    push(ledger, stripe, first + row as u64, ack);
                }
            }
        }
    } else {
        for (stripe, &runs_end) in ends.iter().enumerate() {
            for run in &runs[first_run..runs_end] {
                for (i, &ack) in slots[at..run.end].iter().enumerate() {
                    push(run.ledger, stripe, run.first + i as u64, ack);
                }
                at = run.end;
            }
            first_run = runs_end;
        }
    }
    keyed.sort_unstable_by_key(|&(key, _)| key);
    for &(key, ack) in keyed.iter() {
        let (ledger, entry) = unkey(key);
        visit(ledger, entry, ack);
    }
}

/// Where each stripe's runs end in the gathered runs (stripe after stripe).
pub(super) type RunEnds = [usize; STRIPES as usize];

/// Where a stripe's merge stands: the [`key`] of its next entry ([`DONE`] when the stripe has
/// none left), kept up to date as the cursor moves so that a step of the merge compares 16
/// integers and reads no run; its current run (runs `run .. runs_end` are left), that run's
/// slots `at .. end` and whether they may hold holes.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    head: u128,
    run: usize,
    runs_end: usize,
    at: usize,
    end: usize,
    holes: bool,
}

/// `(ledger, id)` as one integer in their order (an id within a stripe in the merge, an entry id
/// in [`sort_few`]).
fn key(ledger: u64, id: u64) -> u128 {
    (u128::from(ledger) << 64) | u128::from(id)
}

/// `(ledger, id)` of a [`key`].
fn unkey(key: u128) -> (u64, u64) {
    ((key >> 64) as u64, key as u64)
}

/// The head of a stripe with no entries left: after every real one (an id within a stripe is at
/// most `u64::MAX / 16`).
const DONE: u128 = u128::MAX;

impl Cursor {
    /// A cursor on runs `run .. runs_end`, whose slots start at `at`.
    fn new(runs: &[Run], run: usize, runs_end: usize, at: usize) -> Self {
        let mut cursor = Self {
            head: DONE,
            run,
            runs_end,
            at,
            end: at,
            holes: false,
        };
        cursor.enter(runs);
        cursor
    }

    /// Makes run `self.run` the current one (its slots start where the last one's ended), or
    /// marks the stripe done.
    fn enter(&mut self, runs: &[Run]) {
        match runs.get(self.run..self.runs_end).and_then(<[Run]>::first) {
            Some(run) => {
                self.head = key(run.ledger, run.first);
                (self.end, self.holes) = (run.end, run.holes);
            }
            None => self.head = DONE,
        }
    }

    /// Moves past `count` slots of the current run (no more than it holds; a run holds at least
    /// one). The ids of a run are consecutive, so the head moves by as many.
    fn advance(&mut self, count: usize, runs: &[Run]) {
        self.at += count;
        if self.at < self.end {
            self.head += count as u128;
        } else {
            self.run += 1;
            self.enter(runs);
        }
    }
}

/// Hands on the entries of the stripes' runs in ascending (ledger, entry) order: a merge by rows,
/// no sort. Entry `e` is row `e / 16`, column `e mod 16` (its stripe), so the entries in order are
/// the rows in order, each row's columns in stripe order. While every stripe is at the same row
/// (a dense window), whole rows are visited straight from the 16 runs' slices, up to the first
/// run end; elsewhere (a new ledger, a stripe ahead of the others) one row at a time, the
/// stripes at the smallest head.
pub(super) fn merge(
    slots: &[PendingAck],
    runs: &[Run],
    ends: &RunEnds,
    visit: &mut impl FnMut(u64, u64, PendingAck),
) {
    let (mut first_run, mut at) = (0, 0);
    let mut cursors = ends.map(|runs_end| {
        let cursor = Cursor::new(runs, first_run, runs_end, at);
        first_run = runs_end;
        at = runs[..runs_end].last().map_or(0, |run| run.end);
        cursor
    });
    loop {
        let row = cursors
            .iter()
            .map(|cursor| cursor.head)
            .min()
            .unwrap_or(DONE);
        if row == DONE {
            return;
        }
        if cursors.iter().all(|cursor| cursor.head == row) {
            let rows = cursors
                .iter()
                .map(|cursor| cursor.end - cursor.at)
                .min()
                .unwrap_or(0);
            let holes = cursors.iter().any(|cursor| cursor.holes);
            let columns = cursors.map(|cursor| &slots[cursor.at..cursor.at + rows]);
            visit_rows(unkey(row), &columns, rows, holes, visit);
            for cursor in &mut cursors {
                cursor.advance(rows, runs);
            }
        } else {
            let (ledger, id) = unkey(row);
            for (stripe, cursor) in cursors.iter_mut().enumerate() {
                if cursor.head == row {
                    let ack = slots[cursor.at];
                    if ack != PendingAck::ABSENT {
                        visit(ledger, join(stripe, id), ack);
                    }
                    cursor.advance(1, runs);
                }
            }
        }
    }
}

/// Visits `rows` whole rows from the 16 stripes' `columns` (each `rows` long), the first at
/// `(ledger, row)`. Without holes there is no test per slot.
#[inline(always)]
fn visit_rows(
    (ledger, row): (u64, u64),
    columns: &[&[PendingAck]; STRIPES as usize],
    rows: usize,
    holes: bool,
    visit: &mut impl FnMut(u64, u64, PendingAck),
) {
    for r in 0..rows {
        let first = join(0, row + r as u64);
        for (stripe, column) in columns.iter().enumerate() {
            let ack = column[r];
            if !holes || ack != PendingAck::ABSENT {
                visit(ledger, first + stripe as u64, ack);
            }
        }
    }
}

//! `striped-window`: [`DenseWindow`] split into 16 stripes by entry id, each behind its own
//! mutex, so an individual ack or an owner probe locks one sixteenth of the map and no operation
//! takes a map-wide lock.
//!
//! Entry `e` of a ledger lives in stripe `e mod 16` as entry `e / 16`: consecutive entries (which
//! the dispatcher adds and ackers remove at the same time) fall in different stripes, and each
//! stripe still sees dense, increasing ids, so its dense window stays a ring. Cumulative cleanup
//! and scans visit the stripes one after another, each under its own lock, gathering into a
//! buffer kept for the next call, and then merge the 16 ascending runs back into (ledger, entry)
//! order with no lock held (a k-way merge, no sort); a cleanup is therefore not atomic across the
//! map (the shared contract allows that: an entry added while it runs may stay). Mutexes rather
//! than reader/writer locks: every critical section is a few nanoseconds of ring indexing, where
//! a reader count would cost more than it lets run in parallel. No atomics of its own: what is
//! shared is guarded by `std` mutexes.

use std::sync::{Mutex, MutexGuard, PoisonError};

use super::dense_window::DenseWindow;
use crate::shared::{Entry, SharedPendingAcks, Spare};
use crate::{Mark, PendingAck, PendingAcks};

const STRIPES: u64 = 16;

/// A stripe on a cache line of its own, so two threads locking neighbouring stripes do not
/// contend on one line.
#[derive(Default)]
#[repr(align(128))]
struct Stripe(Mutex<DenseWindow>);

#[derive(Default)]
pub struct StripedWindow {
    stripes: [Stripe; STRIPES as usize],
    /// The buffer cleanups, scans and drains gather into, kept for the next one.
    spare: Spare,
}

/// The stripe of `entry` and its id within the stripe.
fn split(entry: u64) -> (usize, u64) {
    ((entry % STRIPES) as usize, entry / STRIPES)
}

fn join(stripe: usize, inner: u64) -> u64 {
    inner * STRIPES + stripe as u64
}

/// `mark` as seen by stripe `stripe`: the same ledger, and in it the stripe's last id at or before
/// the mark's entry (none when the mark's entry is below the stripe's first id).
fn stripe_mark(mark: Mark, stripe: usize) -> Mark {
    match mark.entry {
        Some(entry) if entry >= stripe as u64 => {
            Mark::at(mark.ledger, (entry - stripe as u64) / STRIPES)
        }
        _ => Mark::before(mark.ledger),
    }
}

/// Where each stripe's run of a gathered buffer ends (runs are stored stripe after stripe).
type RunEnds = [usize; STRIPES as usize];

/// Hands on the entries of `runs` (one ascending run per stripe, ending at `ends`) in ascending
/// (ledger, entry) order: a k-way merge that needs no sort. Entry `e + 1` of a ledger lives in the
/// stripe after `e`'s, so while a ledger is dense the next entry is the next stripe's head and one
/// comparison confirms it; only at a hole or a new ledger are the 16 heads compared.
fn merge(runs: &[Entry], ends: &RunEnds, visit: &mut impl FnMut(u64, u64, PendingAck)) {
    // What is left of each stripe's run.
    let mut left: [&[Entry]; STRIPES as usize] = [&[]; STRIPES as usize];
    let mut start = 0;
    for (run, &end) in left.iter_mut().zip(ends) {
        *run = &runs[start..end];
        start = end;
    }
    // The smallest head: the next entry in order; none when every run is done.
    let smallest = |left: &[&[Entry]; STRIPES as usize]| {
        (0..STRIPES as usize)
            .filter_map(|s| left[s].first().map(|&(l, e, _)| ((l, e), s)))
            .min()
            .map(|(_, s)| s)
    };
    while let Some(mut stripe) = smallest(&left) {
        // Then its successors for as long as each is the next stripe's head.
        while let Some((&(ledger, entry, ack), rest)) = left[stripe].split_first() {
            left[stripe] = rest;
            visit(ledger, entry, ack);
            let next = (stripe + 1) % STRIPES as usize;
            match left[next].first() {
                Some(&(l, e, _)) if l == ledger && Some(e) == entry.checked_add(1) => stripe = next,
                _ => break,
            }
        }
    }
}

impl StripedWindow {
    fn lock(&self, stripe: usize) -> MutexGuard<'_, DenseWindow> {
        // A poisoned stripe only means another thread panicked while holding it; no map
        // operation panics half-way.
        self.stripes[stripe]
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn stripe_mut(&mut self, stripe: usize) -> &mut DenseWindow {
        self.stripes[stripe]
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Calls `take` on each stripe in turn (gathering about `expected` entries), under that
    /// stripe's lock only, with the stripe's map
    /// and the buffer its entries go to (translated back to the map's entry ids), then hands
    /// them to `visit` in order with no lock held. The buffer is the map's spare one, taken out
    /// for the call (a callback may call back into the map) and put back after if it is small
    /// next to the map ([`Spare::give_back`]): a steady cleanup of a few entries allocates no
    /// buffer, while a scan, which gathers every entry, allocates one each time.
    fn gather_in_order(
        &self,
        expected: usize,
        mut take: impl FnMut(usize, &mut DenseWindow, &mut Vec<Entry>),
        visit: &mut impl FnMut(u64, u64, PendingAck),
    ) {
        let mut runs = self.spare.take();
        // Room for the entries a scan or drain will gather, so the buffer never regrows.
        runs.reserve(expected);
        let mut ends: RunEnds = [0; STRIPES as usize];
        // Entries left in the stripes, each read under its lock as the stripe is done.
        let mut live = 0;
        for (stripe, end) in ends.iter_mut().enumerate() {
            let mut map = self.lock(stripe);
            take(stripe, &mut map, &mut runs);
            live += map.len();
            *end = runs.len();
        }
        if !runs.is_empty() {
            merge(&runs, &ends, visit);
        }
        self.spare.give_back(runs, live);
    }
}

impl PendingAcks for StripedWindow {
    const NAME: &'static str = "striped-window";
    type Shared = Self;

    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        let (stripe, inner) = split(entry);
        self.stripe_mut(stripe).add_or_replace(ledger, inner, ack)
    }

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let (stripe, inner) = split(entry);
        self.lock(stripe).get(ledger, inner)
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        let (stripe, inner) = split(entry);
        self.stripe_mut(stripe).get_mut(ledger, inner)
    }

    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let (stripe, inner) = split(entry);
        self.stripe_mut(stripe).remove(ledger, inner)
    }

    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        SharedPendingAcks::remove_all_up_to(&*self, mark, on_removed);
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.gather_in_order(
            SharedPendingAcks::len(self),
            |stripe, map, runs| map.for_each(&mut |l, e, a| runs.push((l, join(stripe, e), a))),
            visit,
        );
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        SharedPendingAcks::drain(self, visit);
    }

    fn len(&self) -> usize {
        SharedPendingAcks::len(self)
    }
}

impl SharedPendingAcks for StripedWindow {
    fn add(&self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        let (stripe, inner) = split(entry);
        self.lock(stripe).add_or_replace(ledger, inner, ack)
    }

    fn remove(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let (stripe, inner) = split(entry);
        self.lock(stripe).remove(ledger, inner)
    }

    fn contains(&self, ledger: u64, entry: u64) -> bool {
        let (stripe, inner) = split(entry);
        self.lock(stripe).contains(ledger, inner)
    }

    fn remove_all_up_to(&self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        self.gather_in_order(
            0,
            |stripe, map, runs| {
                map.remove_all_up_to(stripe_mark(mark, stripe), &mut |l, e, a| {
                    runs.push((l, join(stripe, e), a))
                })
            },
            on_removed,
        );
    }

    fn len(&self) -> usize {
        (0..STRIPES as usize).map(|s| self.lock(s).len()).sum()
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.gather_in_order(
            SharedPendingAcks::len(self),
            |stripe, map, runs| map.drain(&mut |l, e, a| runs.push((l, join(stripe, e), a))),
            visit,
        );
        // A drained map keeps no buffer either.
        self.spare.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_restores_map_order_across_holes_ledgers_and_the_top_id() {
        let ack = PendingAck::new(1, 2).unwrap();
        let keys: Vec<(u64, u64)> = (0..40)
            .filter(|e| e % 7 != 3)
            .map(|e| (1, e))
            .chain([
                (1, 1_000),
                (2, 5),
                (2, 6),
                (3, u64::MAX - 16),
                (3, u64::MAX),
            ])
            .collect();
        let mut runs = Vec::new();
        let mut ends: RunEnds = [0; STRIPES as usize];
        for (stripe, end) in ends.iter_mut().enumerate() {
            runs.extend(
                keys.iter()
                    .filter(|&&(_, e)| split(e).0 == stripe)
                    .map(|&(l, e)| (l, e, ack)),
            );
            *end = runs.len();
        }
        let mut merged = Vec::new();
        merge(&runs, &ends, &mut |l, e, _| merged.push((l, e)));
        assert_eq!(merged, keys);
    }

    #[test]
    fn a_stripe_s_mark_keeps_exactly_its_entries_at_or_before_the_map_s_mark() {
        for mark_entry in [
            None,
            Some(0),
            Some(5),
            Some(15),
            Some(16),
            Some(17),
            Some(100),
        ] {
            let mark = Mark {
                ledger: 3,
                entry: mark_entry,
            };
            for stripe in 0..STRIPES as usize {
                let translated = stripe_mark(mark, stripe);
                for inner in 0..10 {
                    let entry = join(stripe, inner);
                    assert_eq!(
                        translated.covers(3, inner),
                        mark.covers(3, entry),
                        "mark {mark:?}, stripe {stripe}, entry {entry}"
                    );
                    assert!(translated.covers(2, inner) && !translated.covers(4, inner));
                }
            }
        }
    }
}

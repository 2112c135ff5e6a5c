//! `striped-window`: [`DenseWindow`] split into 16 stripes by entry id, each behind its own
//! mutex, so an individual ack or an owner probe locks one sixteenth of the map and no operation
//! takes a map-wide lock.
//!
//! Entry `e` of a ledger lives in stripe `e mod 16` as entry `e / 16`: consecutive entries (which
//! the dispatcher adds and ackers remove at the same time) fall in different stripes, and each
//! stripe still sees dense, increasing ids, so its dense window stays a ring. Cumulative cleanup
//! and scans visit the stripes one after another, each under its own lock, copying each stripe's
//! ordered runs whole (a ring prefix is one slice, one `memcpy`) into buffers kept for the next
//! call, and then merge the 16 stripes' runs back into (ledger, entry) order with no lock held:
//! entry `e` is row `e / 16`, column `e mod 16`, so where every stripe stands at the same row (a
//! dense window) whole rows are read straight across the 16 copied runs, and elsewhere one row at a
//! time. No sort (except where a few dozen entries or fewer were gathered: sorting their keys costs
//! less than setting up 16 cursors), and no work per entry beyond the copy and the callback. A
//! cleanup is therefore not atomic across the map (the shared contract allows that: an entry added
//! while it runs may stay). The copy is the price of calling back with no lock held (a callback may
//! call into the map); valgrind counts glibc's `rep movsb` copy one instruction per byte, 8 an
//! entry, which the instruction rows include and time rows do not show. Mutexes rather than
//! reader/writer locks: every critical section is a few nanoseconds of ring indexing, where a
//! reader count would cost more than it lets run in parallel. No atomics of its own: what is shared
//! is guarded by `std` mutexes.

use std::sync::{Mutex, MutexGuard, PoisonError};

use super::dense_window::DenseWindow;
use crate::shared::{SharedPendingAcks, Spare};
use crate::{Mark, PendingAck, PendingAcks};

mod order;

pub use order::SORTED_UP_TO;

use order::{Gather, Gathered, RunEnds, merge, sort_few};

pub const STRIPES: u64 = 16;

/// A stripe on a cache line of its own, so two threads locking neighbouring stripes do not
/// contend on one line.
#[derive(Default)]
#[repr(align(128))]
struct Stripe(Mutex<DenseWindow>);

#[derive(Default)]
pub struct StripedWindow {
    stripes: [Stripe; STRIPES as usize],
    /// The buffers cleanups, scans and drains gather into, kept for the next one.
    spare: Spare<Gathered>,
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
    /// stripe's lock only, with the stripe's map and where its runs go, then hands the entries to
    /// `visit` in order with no lock held. The buffers are the map's spare ones, taken out for
    /// the call (a callback may call back into the map) and put back after if they are small
    /// next to the map ([`Spare::give_back`]): a steady cleanup of a few entries allocates no
    /// buffer, while a scan, which gathers every entry, allocates one each time.
    fn gather_in_order(
        &self,
        expected: usize,
        mut take: impl FnMut(usize, &mut DenseWindow, &mut Gather),
        visit: &mut impl FnMut(u64, u64, PendingAck),
    ) {
        let Gathered {
            mut slots,
            mut runs,
            mut keyed,
        } = self.spare.take();
        // Room for the entries a scan or drain will gather, so the buffer never regrows.
        slots.reserve(expected);
        let mut ends: RunEnds = [0; STRIPES as usize];
        // Entries left in the stripes, each read under its lock as the stripe is done.
        let mut live = 0;
        for (stripe, end) in ends.iter_mut().enumerate() {
            let mut map = self.lock(stripe);
            take(
                stripe,
                &mut map,
                &mut Gather {
                    slots: &mut slots,
                    runs: &mut runs,
                },
            );
            live += map.len();
            *end = runs.len();
            if stripe == 0 && !slots.is_empty() {
                // Entries spread evenly over the stripes (`e mod 16`): the first stripe's share
                // sizes the buffers once, where doubling would copy them again and again.
                let rest = STRIPES as usize - 1;
                slots.reserve(slots.len() * rest);
                runs.reserve(runs.len() * rest);
            }
        }
        match slots.len() {
            0 => {}
            1..=SORTED_UP_TO => sort_few(&slots, &runs, &ends, &mut keyed, visit),
            _ => merge(&slots, &runs, &ends, visit),
        }
        let gathered = Gathered { slots, runs, keyed };
        self.spare.give_back(gathered, live);
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
            |_, map, runs| map.for_each_run(runs),
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
            |stripe, map, runs| map.remove_runs_up_to(stripe_mark(mark, stripe), runs),
            on_removed,
        );
    }

    fn len(&self) -> usize {
        (0..STRIPES as usize).map(|s| self.lock(s).len()).sum()
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.gather_in_order(
            SharedPendingAcks::len(self),
            |_, map, runs| map.drain_runs(runs),
            visit,
        );
        // A drained map keeps no buffer either.
        self.spare.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that take every path of the merge (and, in a cleanup of a few, the sort): whole rows (a
    /// dense window, with and without holes), a stripe ahead of the others, ledgers of different
    /// lengths, one-entry and sparse ledgers, and the top id.
    fn merge_keys() -> Vec<(u64, u64)> {
        (0..40)
            .filter(|e| e % 7 != 3)
            .map(|e| (1, e))
            .chain((0..100).map(|e| (2, e)))
            .chain([(2, 1_000), (3, 5), (4, 6), (4, 7)])
            .chain([(5, u64::MAX - 16), (5, u64::MAX)])
            .chain((0..33).map(|e| (6, 17 + e)))
            .collect()
    }

    fn striped(keys: &[(u64, u64)]) -> StripedWindow {
        let mut map = StripedWindow::default();
        for (i, &(l, e)) in keys.iter().enumerate() {
            map.add_or_replace(l, e, PendingAck::new(1, i as i32).unwrap());
        }
        map
    }

    #[test]
    fn the_merge_restores_map_order_across_rows_holes_ledgers_and_the_top_id() {
        let keys = merge_keys();
        let map = striped(&keys);
        let mut scanned = Vec::new();
        map.for_each(&mut |l, e, ack| scanned.push((l, e, ack.sticky_key_hash())));
        let expected: Vec<_> = (keys.iter().enumerate())
            .map(|(i, &(l, e))| (l, e, i as i32))
            .collect();
        assert_eq!(scanned, expected);
    }

    #[test]
    fn a_cleanup_hands_on_exactly_the_covered_entries_in_order() {
        let keys = merge_keys();
        let mut sizes = Vec::new();
        for mark in [
            Mark::at(1, 20),
            Mark::at(2, 50),
            Mark::before(4),
            Mark::at(6, 30),
        ] {
            let mut map = striped(&keys);
            let mut removed = Vec::new();
            PendingAcks::remove_all_up_to(&mut map, mark, &mut |l, e, _| removed.push((l, e)));
            let covered = keys.iter().copied().filter(|&(l, e)| mark.covers(l, e));
            assert_eq!(removed, covered.collect::<Vec<_>>(), "mark {mark:?}");
            sizes.push(removed.len());
            let mut left = Vec::new();
            map.for_each(&mut |l, e, _| left.push((l, e)));
            let kept = keys.iter().copied().filter(|&(l, e)| !mark.covers(l, e));
            assert_eq!(left, kept.collect::<Vec<_>>(), "mark {mark:?}");
        }
        // Both ways to order what was gathered: the sort of a few and the merge.
        assert!(
            sizes.iter().any(|&n| (1..=SORTED_UP_TO).contains(&n)),
            "{sizes:?}"
        );
        assert!(sizes.iter().any(|&n| n > SORTED_UP_TO), "{sizes:?}");
    }

    #[test]
    fn a_few_entries_of_several_ledgers_are_sorted_into_map_order() {
        // Some stripes hand over a run of each ledger: the sort takes them stripe after stripe.
        let keys: Vec<(u64, u64)> = (0..20)
            .map(|e| (1, e))
            .chain((3..9).map(|e| (2, e)))
            .chain([(3, 40)])
            .collect();
        let map = striped(&keys);
        let mut scanned = Vec::new();
        map.for_each(&mut |l, e, _| scanned.push((l, e)));
        assert_eq!(scanned, keys);
        let mut map = striped(&keys);
        let mut removed = Vec::new();
        let mark = Mark::at(2, 5);
        PendingAcks::remove_all_up_to(&mut map, mark, &mut |l, e, _| removed.push((l, e)));
        let covered: Vec<_> = keys
            .iter()
            .copied()
            .filter(|&(l, e)| mark.covers(l, e))
            .collect();
        assert_eq!(removed, covered);
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

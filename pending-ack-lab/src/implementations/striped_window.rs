//! `striped-window`: [`DenseWindow`] split into 16 stripes by entry id, each behind its own
//! mutex, so an individual ack or an owner probe locks one sixteenth of the map and no operation
//! takes a map-wide lock.
//!
//! Entry `e` of a ledger lives in stripe `e mod 16` as entry `e / 16`: consecutive entries (which
//! the dispatcher adds and ackers remove at the same time) fall in different stripes, and each
//! stripe still sees dense, increasing ids, so its dense window stays a ring. Cumulative cleanup
//! and scans visit the stripes one after another and merge their entries back into (ledger, entry)
//! order; a cleanup is therefore not atomic across the map (the shared contract allows that: an
//! entry added while it runs may stay). Mutexes rather than reader/writer locks: every critical
//! section is a few nanoseconds of ring indexing, where a reader count would cost more than it
//! lets run in parallel. No atomics of its own: what is shared is guarded by `std` mutexes.

use std::sync::{Mutex, MutexGuard, PoisonError};

use super::dense_window::DenseWindow;
use crate::shared::SharedPendingAcks;
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

/// Entries gathered from the stripes, handed on in ascending (ledger, entry) order. Each stripe's
/// part is already ascending, so the stable sort merges 16 runs.
fn in_order(
    mut entries: Vec<(u64, u64, PendingAck)>,
    visit: &mut impl FnMut(u64, u64, PendingAck),
) {
    entries.sort_by_key(|&(ledger, entry, _)| (ledger, entry));
    for (ledger, entry, ack) in entries {
        visit(ledger, entry, ack);
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

    /// Calls `take` on each stripe in turn with the stripe's map and a collector for its entries,
    /// translated back to the map's entry ids.
    fn gather(
        &self,
        mut take: impl FnMut(usize, &mut DenseWindow, &mut dyn FnMut(u64, u64, PendingAck)),
    ) -> Vec<(u64, u64, PendingAck)> {
        let mut entries = Vec::new();
        for stripe in 0..STRIPES as usize {
            let mut map = self.lock(stripe);
            take(stripe, &mut map, &mut |ledger, inner, ack| {
                entries.push((ledger, join(stripe, inner), ack))
            });
        }
        entries
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
        in_order(
            self.gather(|_, map, push| map.for_each(&mut |l, e, a| push(l, e, a))),
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
        let removed = self.gather(|stripe, map, push| {
            map.remove_all_up_to(stripe_mark(mark, stripe), &mut |l, e, a| push(l, e, a))
        });
        in_order(removed, on_removed);
    }

    fn len(&self) -> usize {
        (0..STRIPES as usize).map(|s| self.lock(s).len()).sum()
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        let drained = self.gather(|_, map, push| map.drain(&mut |l, e, a| push(l, e, a)));
        in_order(drained, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

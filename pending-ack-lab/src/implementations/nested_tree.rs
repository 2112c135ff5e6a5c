//! `nested-tree`: Pulsar's merged shape (#26030), `ledger → (entry → packed)` in ordered trees,
//! here `BTreeMap<u64, BTreeMap<u64, PendingAck>>` with an O(1) length counter (#26019).

use std::collections::BTreeMap;

use crate::{Mark, PendingAck, PendingAcks};

#[derive(Default, Clone)]
pub struct NestedTree {
    ledgers: BTreeMap<u64, BTreeMap<u64, PendingAck>>,
    len: usize,
}

impl PendingAcks for NestedTree {
    const NAME: &'static str = "nested-tree";
    type Shared = crate::shared::RwLocked<Self>;

    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        let new = self
            .ledgers
            .entry(ledger)
            .or_default()
            .insert(entry, ack)
            .is_none();
        self.len += usize::from(new);
        new
    }

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        self.ledgers.get(&ledger)?.get(&entry).copied()
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        self.ledgers.get_mut(&ledger)?.get_mut(&entry)
    }

    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let entries = self.ledgers.get_mut(&ledger)?;
        let removed = entries.remove(&entry)?;
        if entries.is_empty() {
            self.ledgers.remove(&ledger);
        }
        self.len -= 1;
        Some(removed)
    }

    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        // `split_off` keeps the removed prefix as its own tree: O(log n) to cut, then one ordered
        // walk for the callbacks (the Rust form of Java's `headMap(...).clear()`).
        let kept = self.ledgers.split_off(&mark.ledger);
        let earlier = std::mem::replace(&mut self.ledgers, kept);
        for (ledger, entries) in earlier {
            self.len -= entries.len();
            for (entry, ack) in entries {
                on_removed(ledger, entry, ack);
            }
        }
        let Some(mark_entry) = mark.entry else {
            return;
        };
        let Some(entries) = self.ledgers.get_mut(&mark.ledger) else {
            return;
        };
        let prefix = match mark_entry.checked_add(1) {
            Some(first_kept) => {
                let kept = entries.split_off(&first_kept);
                std::mem::replace(entries, kept)
            }
            None => std::mem::take(entries),
        };
        if entries.is_empty() {
            self.ledgers.remove(&mark.ledger);
        }
        self.len -= prefix.len();
        for (entry, ack) in prefix {
            on_removed(mark.ledger, entry, ack);
        }
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        for (&ledger, entries) in &self.ledgers {
            for (&entry, &ack) in entries {
                visit(ledger, entry, ack);
            }
        }
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.len = 0;
        for (ledger, entries) in std::mem::take(&mut self.ledgers) {
            for (entry, ack) in entries {
                visit(ledger, entry, ack);
            }
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}

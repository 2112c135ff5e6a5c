//! `nested-node-tree`: the write-up's `oldProduction`, `TreeMap<Long, TreeMap<Long, IntIntPair>>`,
//! with the JVM's heap layout: one node per entry with a boxed key and a boxed value
//! ([`NodeTree`], AVL-balanced where `TreeMap` is red-black), and a tree object per ledger. It is
//! the faithful model of what draft PR #26024 measured its primitive layout against; `nested-tree`
//! is the same nesting as Rust writes it, B-trees that keep up to 11 entries per node inline.
//!
//! Not modelled: the old code's copy of a mark ledger's prefix before removing it
//! (`new TreeMap<>(headMap(…))`; here the prefix is removed entry by entry, as the copy's
//! iteration then does), its `size()` that streamed over the ledgers (here O(1), #26019), and the
//! boxing of lookup keys (see [`NodeTree`]).

use super::node_tree::NodeTree;
use crate::{Mark, PendingAck, PendingAcks};

#[derive(Default)]
pub struct NestedNodeTree {
    ledgers: NodeTree<NodeTree<PendingAck>>,
    len: usize,
}

impl PendingAcks for NestedNodeTree {
    const NAME: &'static str = "nested-node-tree";
    type Shared = crate::shared::RwLocked<Self>;

    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        if self.ledgers.get(ledger).is_none() {
            self.ledgers.insert(ledger, NodeTree::default());
        }
        let entries = self
            .ledgers
            .get_mut(ledger)
            .expect("the ledger's tree was just ensured");
        let new = entries.insert(entry, ack).is_none();
        self.len += usize::from(new);
        new
    }

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        self.ledgers.get(ledger)?.get(entry).copied()
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        self.ledgers.get_mut(ledger)?.get_mut(entry)
    }

    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let entries = self.ledgers.get_mut(ledger)?;
        let removed = entries.remove(entry)?;
        if entries.is_empty() {
            self.ledgers.remove(ledger);
        }
        self.len -= 1;
        Some(removed)
    }

    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        while let Some(ledger) = self.ledgers.first_key().filter(|l| *l < mark.ledger) {
            let (_, mut entries) = self.ledgers.pop_first().expect("a first ledger exists");
            self.len -= entries.len();
            entries.drain(&mut |entry, ack| on_removed(ledger, entry, ack));
        }
        let Some(mark_entry) = mark.entry else {
            return;
        };
        let Some(entries) = self.ledgers.get_mut(mark.ledger) else {
            return;
        };
        while let Some(entry) = entries.first_key().filter(|e| *e <= mark_entry) {
            let (_, ack) = entries.pop_first().expect("a first entry exists");
            self.len -= 1;
            on_removed(mark.ledger, entry, ack);
        }
        if entries.is_empty() {
            self.ledgers.remove(mark.ledger);
        }
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.ledgers.for_each(&mut |ledger, entries| {
            entries.for_each(&mut |entry, ack| visit(ledger, entry, *ack));
        });
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.len = 0;
        self.ledgers.drain(&mut |ledger, mut entries| {
            entries.drain(&mut |entry, ack| visit(ledger, entry, ack));
        });
    }

    fn len(&self) -> usize {
        self.len
    }

    /// As the old code updates an immutable `IntIntPair`: a new value object, put in place of the
    /// old one.
    fn update_remaining_unacked(&mut self, ledger: u64, entry: u64, acked: i32) -> bool {
        let Some(entries) = self.ledgers.get_mut(ledger) else {
            return false;
        };
        let Some(updated) = entries.get(entry).and_then(|v| v.with_acked(acked)) else {
            return false;
        };
        entries.insert(entry, updated);
        true
    }
}

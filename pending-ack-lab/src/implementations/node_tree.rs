//! An ordered map laid out as `java.util.TreeMap<Long, V>` lays out its entries: one heap node per
//! entry, holding a boxed key and a boxed value, linked as a balanced binary search tree. The
//! layout is what `nested-node-tree` models; the balancing is AVL (height within 1.44 log₂ n)
//! where `TreeMap` is red-black (within 2 log₂ n): the same O(log n) walks through one node per
//! level.
//!
//! Per entry this allocates a node (five words: key, value, two children, height) and the two
//! boxes; replacing a value allocates a new value box, as `put` does with a new value object.
//! Lookups take the key unboxed: a JVM boxes the `long` of `get(Long)` unless escape analysis
//! removes it, and that allocation is not modelled.

type Link<V> = Option<Box<Node<V>>>;

struct Node<V> {
    key: Box<u64>,
    value: Box<V>,
    height: u8,
    left: Link<V>,
    right: Link<V>,
}

fn height<V>(link: &Link<V>) -> u8 {
    link.as_ref().map_or(0, |n| n.height)
}

impl<V> Node<V> {
    fn new(key: u64, value: V) -> Box<Self> {
        Box::new(Self {
            key: Box::new(key),
            value: Box::new(value),
            height: 1,
            left: None,
            right: None,
        })
    }

    fn fix_height(&mut self) {
        self.height = 1 + height(&self.left).max(height(&self.right));
    }

    fn tilt(&self) -> i16 {
        i16::from(height(&self.left)) - i16::from(height(&self.right))
    }
}

fn rotate_right<V>(mut node: Box<Node<V>>) -> Box<Node<V>> {
    let Some(mut left) = node.left.take() else {
        return node;
    };
    node.left = left.right.take();
    node.fix_height();
    left.right = Some(node);
    left.fix_height();
    left
}

fn rotate_left<V>(mut node: Box<Node<V>>) -> Box<Node<V>> {
    let Some(mut right) = node.right.take() else {
        return node;
    };
    node.right = right.left.take();
    node.fix_height();
    right.left = Some(node);
    right.fix_height();
    right
}

/// Restores the AVL balance of `node`, whose subtrees are balanced and differ in height by ≤ 2.
fn rebalance<V>(mut node: Box<Node<V>>) -> Box<Node<V>> {
    node.fix_height();
    match node.tilt() {
        2 => {
            if node.left.as_ref().is_some_and(|l| l.tilt() < 0) {
                node.left = node.left.take().map(rotate_left);
            }
            rotate_right(node)
        }
        -2 => {
            if node.right.as_ref().is_some_and(|r| r.tilt() > 0) {
                node.right = node.right.take().map(rotate_right);
            }
            rotate_left(node)
        }
        _ => node,
    }
}

/// Inserts or replaces; returns the new subtree and the value replaced, if any.
fn insert<V>(link: Link<V>, key: u64, value: V) -> (Box<Node<V>>, Option<V>) {
    let Some(mut node) = link else {
        return (Node::new(key, value), None);
    };
    let replaced = match key.cmp(&node.key) {
        std::cmp::Ordering::Equal => {
            let old = std::mem::replace(&mut node.value, Box::new(value));
            return (node, Some(*old));
        }
        std::cmp::Ordering::Less => {
            let (child, replaced) = insert(node.left.take(), key, value);
            node.left = Some(child);
            replaced
        }
        std::cmp::Ordering::Greater => {
            let (child, replaced) = insert(node.right.take(), key, value);
            node.right = Some(child);
            replaced
        }
    };
    (rebalance(node), replaced)
}

/// Removes the smallest entry of a non-empty subtree: the rest and the removed node.
fn remove_min<V>(mut node: Box<Node<V>>) -> (Link<V>, Box<Node<V>>) {
    match node.left.take() {
        None => (node.right.take(), node),
        Some(left) => {
            let (rest, min) = remove_min(left);
            node.left = rest;
            (Some(rebalance(node)), min)
        }
    }
}

/// Removes `key`; returns the new subtree and the removed value.
fn remove<V>(link: Link<V>, key: u64) -> (Link<V>, Option<V>) {
    let Some(mut node) = link else {
        return (None, None);
    };
    match key.cmp(&node.key) {
        std::cmp::Ordering::Less => {
            let (rest, removed) = remove(node.left.take(), key);
            node.left = rest;
            (Some(rebalance(node)), removed)
        }
        std::cmp::Ordering::Greater => {
            let (rest, removed) = remove(node.right.take(), key);
            node.right = rest;
            (Some(rebalance(node)), removed)
        }
        std::cmp::Ordering::Equal => {
            let Node {
                value, left, right, ..
            } = *node;
            let rest = match (left, right) {
                (None, only) | (only, None) => only,
                (Some(left), Some(right)) => {
                    let (right, mut successor) = remove_min(right);
                    successor.left = Some(left);
                    successor.right = right;
                    Some(rebalance(successor))
                }
            };
            (rest, Some(*value))
        }
    }
}

fn visit<V>(link: &Link<V>, f: &mut impl FnMut(u64, &V)) {
    if let Some(node) = link {
        visit(&node.left, f);
        f(*node.key, &node.value);
        visit(&node.right, f);
    }
}

fn into_sorted<V>(link: Link<V>, f: &mut impl FnMut(u64, V)) {
    if let Some(node) = link {
        let Node {
            key,
            value,
            left,
            right,
            ..
        } = *node;
        into_sorted(left, f);
        f(*key, *value);
        into_sorted(right, f);
    }
}

/// The map.
pub struct NodeTree<V> {
    root: Link<V>,
    len: usize,
}

impl<V> Default for NodeTree<V> {
    fn default() -> Self {
        Self { root: None, len: 0 }
    }
}

impl<V> NodeTree<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Inserts or replaces (a new value box either way); returns the value replaced.
    pub fn insert(&mut self, key: u64, value: V) -> Option<V> {
        let (root, replaced) = insert(self.root.take(), key, value);
        self.root = Some(root);
        self.len += usize::from(replaced.is_none());
        replaced
    }

    pub fn get(&self, key: u64) -> Option<&V> {
        let mut link = &self.root;
        while let Some(node) = link {
            match key.cmp(&node.key) {
                std::cmp::Ordering::Equal => return Some(&node.value),
                std::cmp::Ordering::Less => link = &node.left,
                std::cmp::Ordering::Greater => link = &node.right,
            }
        }
        None
    }

    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let mut link = &mut self.root;
        while let Some(node) = link {
            match key.cmp(&node.key) {
                std::cmp::Ordering::Equal => return Some(&mut node.value),
                std::cmp::Ordering::Less => link = &mut node.left,
                std::cmp::Ordering::Greater => link = &mut node.right,
            }
        }
        None
    }

    pub fn remove(&mut self, key: u64) -> Option<V> {
        let (root, removed) = remove(self.root.take(), key);
        self.root = root;
        self.len -= usize::from(removed.is_some());
        removed
    }

    /// The smallest key.
    pub fn first_key(&self) -> Option<u64> {
        let mut node = self.root.as_ref()?;
        while let Some(left) = &node.left {
            node = left;
        }
        Some(*node.key)
    }

    /// Removes and returns the smallest entry.
    pub fn pop_first(&mut self) -> Option<(u64, V)> {
        let (rest, min) = remove_min(self.root.take()?);
        self.root = rest;
        self.len -= 1;
        let Node { key, value, .. } = *min;
        Some((*key, *value))
    }

    /// Visits every entry in ascending key order.
    pub fn for_each(&self, f: &mut impl FnMut(u64, &V)) {
        visit(&self.root, f);
    }

    /// Visits every entry in ascending key order, leaving the map empty.
    pub fn drain(&mut self, f: &mut impl FnMut(u64, V)) {
        self.len = 0;
        into_sorted(self.root.take(), f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Checks the AVL invariant and the order; returns the subtree's height and size.
    fn check<V>(link: &Link<V>, low: Option<u64>, high: Option<u64>) -> (u8, usize) {
        let Some(node) = link else {
            return (0, 0);
        };
        assert!(low.is_none_or(|l| *node.key > l) && high.is_none_or(|h| *node.key < h));
        let (lh, ls) = check(&node.left, low, Some(*node.key));
        let (rh, rs) = check(&node.right, Some(*node.key), high);
        assert!(lh.abs_diff(rh) <= 1, "unbalanced at {}", node.key);
        assert_eq!(node.height, 1 + lh.max(rh));
        (node.height, ls + rs + 1)
    }

    #[test]
    fn agrees_with_a_btree_map_and_stays_balanced() {
        let mut tree = NodeTree::default();
        let mut model = BTreeMap::new();
        let mut x: u64 = 1;
        for step in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = (x >> 33) % 2_000;
            match step % 5 {
                0 | 1 => assert_eq!(tree.insert(key, step), model.insert(key, step)),
                2 => assert_eq!(tree.remove(key), model.remove(&key)),
                3 => assert_eq!(tree.get(key), model.get(&key)),
                _ => assert_eq!(tree.pop_first(), model.pop_first()),
            }
            assert_eq!(tree.len(), model.len());
        }
        assert_eq!(check(&tree.root, None, None).1, model.len());
        assert_eq!(tree.first_key(), model.keys().next().copied());
        let mut seen = Vec::new();
        tree.for_each(&mut |k, v| seen.push((k, *v)));
        assert_eq!(
            seen,
            model.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>()
        );
        *tree.get_mut(seen[0].0).unwrap() = 7;
        let mut drained = Vec::new();
        tree.drain(&mut |k, v| drained.push((k, v)));
        assert_eq!(drained[0], (seen[0].0, 7));
        assert_eq!(drained.len(), seen.len());
        assert!(tree.is_empty() && tree.first_key().is_none());
    }
}

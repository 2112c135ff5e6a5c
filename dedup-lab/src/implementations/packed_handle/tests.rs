//! Tests of [`super`].

use super::*;

fn single(id: u64) -> SequenceBatch {
    SequenceBatch::single(id).unwrap()
}

#[test]
fn a_purged_slot_no_connection_holds_is_reused_empty() {
    let dedup = PackedHandle::default();
    let a = dedup.connect("a");
    dedup.admit(&a, single(7));
    let slot = a.ids.slot;
    drop(a);
    dedup.purge("a");
    assert_eq!(dedup.ids.lock().free, vec![slot]);
    let b = dedup.connect("b");
    assert_eq!(b.ids.slot, slot, "the freed slot is handed out again");
    assert_eq!(dedup.highest_pushed("b"), None);
    assert_eq!(dedup.highest_pushed("a"), None);
    assert_eq!(dedup.admit(&b, single(0)), DupStatus::NotDup);
    assert_eq!(
        dedup.highest_pushed("a"),
        None,
        "a's name no longer finds b's slot"
    );
}

#[test]
fn a_purge_keeps_the_slot_of_a_connected_producer() {
    let dedup = PackedHandle::default();
    let a = dedup.connect("a");
    dedup.admit(&a, single(7));
    dedup.purge("a");
    assert!(dedup.ids.lock().free.is_empty());
    assert_eq!(dedup.highest_pushed("a"), None, "watermarks cleared");
    assert_eq!(dedup.admit(&a, single(1)), DupStatus::NotDup);
    assert_eq!(
        dedup.highest_pushed("a"),
        Some(1),
        "the name still finds the held slot"
    );
    let again = dedup.connect("a");
    assert_eq!(again.ids.slot, a.ids.slot);
}

#[test]
fn segments_double_up_to_the_largest_and_slot_numbers_address_them() {
    let dedup = PackedHandle::default();
    let producers = 3 * SEGMENT_MAX;
    for p in 0..producers {
        let handle = dedup.connect(&format!("p{p}"));
        dedup.admit(&handle, single(p as u64));
    }
    let lens: Vec<usize> = dedup
        .ids
        .lock()
        .segments
        .iter()
        .map(|s| s.keys.len())
        .collect();
    assert_eq!(lens[..9], [4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    assert!(lens[9..].iter().all(|&len| len == SEGMENT_MAX));
    assert!(lens.iter().sum::<usize>() - producers < SEGMENT_MAX);
    for p in (0..producers).step_by(97) {
        assert_eq!(dedup.highest_pushed(&format!("p{p}")), Some(p as u64));
    }
}

#[test]
fn a_held_handle_admits_to_its_slot_while_the_table_grows() {
    let dedup = PackedHandle::default();
    let first = dedup.connect("first");
    assert_eq!(dedup.admit(&first, single(1)), DupStatus::NotDup);
    dedup.record_persisted(&first, single(1));
    // New segments (and the segment list's reallocations) while `first` holds its pointer.
    let others: Vec<Handle> = (0..3 * SEGMENT_MAX)
        .map(|p| dedup.connect(&format!("p{p}")))
        .collect();
    for (p, handle) in others.iter().enumerate() {
        assert_eq!(dedup.admit(handle, single(p as u64)), DupStatus::NotDup);
    }
    assert_eq!(dedup.admit(&first, single(1)), DupStatus::Dup);
    assert_eq!(dedup.admit(&first, single(2)), DupStatus::NotDup);
    assert_eq!(dedup.highest_pushed("first"), Some(2));
    let moved = std::thread::spawn(move || dedup.admit(&first, single(3)) == DupStatus::NotDup);
    assert!(moved.join().unwrap(), "a handle sent to another thread");
}

#[test]
fn connections_are_counted_in_and_out_and_a_pinned_count_stays() {
    let mut table = Table::<u64>::default();
    let (slot, _) = table.connect([1, 2]);
    table.connect([1, 2]);
    let (s, i) = split(slot);
    assert_eq!(table.segments[s].connections[i], 2);
    table.disconnect(slot);
    assert_eq!(table.segments[s].connections[i], 1);
    table.segments[s].connections[i] = PINNED;
    table.connect([1, 2]);
    table.disconnect(slot);
    assert_eq!(table.segments[s].connections[i], PINNED);
    table.purge([1, 2]);
    assert!(table.free.is_empty(), "a pinned slot is never freed");
}

#[test]
fn keys_of_distinct_names_differ_in_both_words() {
    let dedup = PackedHandle::default();
    let a = dedup.key("producer-1");
    assert_eq!(a, dedup.key("producer-1"));
    assert_ne!(a[0], a[1]);
    let b = dedup.key("producer-2");
    assert!(a[0] != b[0] && a[1] != b[1]);
}

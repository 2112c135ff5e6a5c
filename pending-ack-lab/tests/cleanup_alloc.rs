//! dhat testing mode: sharing a design between threads adds no heap allocation to a steady
//! cleanup. The lock a single-threaded design runs behind (`RwLocked`: the removed entries are
//! gathered under the lock and handed to the callback after it) keeps its gathering buffer
//! between cleanups, as `striped-window` keeps its own; so in a sliding window, where each
//! cleanup removes the prefix the dispatcher has just moved past, the shared map's cleanups
//! allocate exactly what the design's own single-threaded cleanups allocate (none for the window
//! designs). Only the cleanup calls are counted, not the adds between them. One profiler per
//! process, so this file has one test.

use pending_ack_lab::shared::SharedPendingAcks;
use pending_ack_lab::{
    ImplementationVisitor, Mark, PendingAck, PendingAcks, for_each_implementation,
};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Entries pending at once.
const WINDOW: u64 = 4_096;
/// Entries dispatched, then cleaned up, per round.
const STEP: u64 = 64;
/// Rounds before counting (buffers and rings reach their steady size), then rounds counted.
const WARM_UP: u64 = 32;
const COUNTED: u64 = 256;

fn ack(entry: u64) -> PendingAck {
    PendingAck::new(1, entry as i32).expect("1 is in range")
}

/// Blocks allocated by the cleanups alone of a sliding window over `map`: each round adds the
/// next [`STEP`] entries of ledger 0 with `add`, then `clean`s up to [`WINDOW`] entries behind.
fn cleanup_blocks<T>(map: &T, add: impl Fn(&T, u64, PendingAck), clean: impl Fn(&T, Mark)) -> u64 {
    for entry in 0..WINDOW {
        add(map, entry, ack(entry));
    }
    let mut blocks = 0;
    for round in 0..WARM_UP + COUNTED {
        let first = WINDOW + round * STEP;
        for entry in first..first + STEP {
            add(map, entry, ack(entry));
        }
        let before = dhat::HeapStats::get().total_blocks;
        clean(map, Mark::at(0, first + STEP - WINDOW - 1));
        if round >= WARM_UP {
            blocks += dhat::HeapStats::get().total_blocks - before;
        }
    }
    blocks
}

/// Times each count is taken, on a fresh map each time.
const REPEATS: usize = 3;

/// The fewest blocks of [`REPEATS`] counts: the profiler counts the whole process, so another
/// thread of the test harness allocating during a count can only add to it.
fn fewest(count: impl Fn() -> u64) -> u64 {
    (0..REPEATS).map(|_| count()).min().unwrap_or(0)
}

struct SharedCleanupAllocatesNoMore;

impl ImplementationVisitor for SharedCleanupAllocatesNoMore {
    fn visit<M: PendingAcks>(&mut self) {
        let sink = |_: u64, _: u64, ack: PendingAck| {
            std::hint::black_box(ack);
        };
        // The single-threaded design, owned: `add` and `clean` need `&mut`, so it sits in a cell.
        let alone = fewest(|| {
            cleanup_blocks(
                &std::cell::RefCell::new(M::default()),
                |m, e, a| {
                    m.borrow_mut().add_or_replace(0, e, a);
                },
                |m, mark| m.borrow_mut().remove_all_up_to(mark, &mut { sink }),
            )
        });
        let behind_lock = fewest(|| {
            cleanup_blocks(
                &M::Shared::default(),
                |m, e, a| {
                    m.add(0, e, a);
                },
                |m, mark| m.remove_all_up_to(mark, &mut { sink }),
            )
        });
        dhat::assert_eq!(
            behind_lock,
            alone,
            "{}: {COUNTED} shared cleanups allocated {behind_lock} blocks, the design alone {alone}",
            M::NAME
        );
    }
}

#[test]
fn a_shared_steady_cleanup_allocates_what_the_design_alone_does() {
    let _profiler = dhat::Profiler::builder().testing().build();
    for_each_implementation(&mut SharedCleanupAllocatesNoMore);
}

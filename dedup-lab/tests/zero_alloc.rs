//! dhat testing mode: the designs that claim allocation-free steady-state admission make no heap
//! allocation per admission, by sequence id or by replicated position, in any shape: none at all on one thread, and at most one block per
//! thread with several (a lock's lazily created per-thread parking data can first be needed in the
//! measured window; it is created once per thread, never per call). `papaya-cas` allocates on
//! accepted updates, as expected of papaya's boxed entries. One profiler per process, so this file
//! has one test.

use dedup_lab::workload::{Ids, SHAPES, Shape, run_window};
use dedup_lab::{ImplementationVisitor, SequenceDedup, for_each_implementation};
use labkit::lab::Window;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const OPS: u64 = 2_000;

/// dhat's block count when the measured window opened and closed.
#[derive(Default)]
struct BlocksInWindow {
    before: Option<u64>,
    after: Option<u64>,
}

impl Window for BlocksInWindow {
    fn open(&mut self) {
        self.before = Some(dhat::HeapStats::get().total_blocks);
    }
    fn close(&mut self) {
        self.after = Some(dhat::HeapStats::get().total_blocks);
    }
    fn latencies(&self) -> Option<std::sync::Arc<labkit::latency::LatencySink>> {
        None
    }
    fn count(&mut self, _: labkit::record::EventName, _: u64) {}
    fn completed(&mut self, _: f64) {}
    fn heap_measured(&mut self, _: labkit::lab::MeasuredHeap) {}
    fn failed(&mut self, reason: String) {
        panic!("a Rust design's run failed: {reason}");
    }
}

struct SteadyState {
    shape: Shape,
    ids: Ids,
}

impl ImplementationVisitor for SteadyState {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let mut workers = self.shape.prepare_ids(&dedup, self.ids);
        let mut blocks = BlocksInWindow::default();
        run_window(&dedup, &mut workers, OPS, OPS, &mut blocks);
        let blocks = blocks.after.unwrap() - blocks.before.unwrap();
        let what = format!("{} / {} / {:?}", D::NAME, self.shape.name(), self.ids);
        if D::ZERO_ALLOC_STEADY_STATE {
            let per_thread_state = if workers.len() == 1 {
                0
            } else {
                workers.len() as u64
            };
            dhat::assert!(
                blocks <= per_thread_state,
                "{what}: allocated {blocks} blocks"
            );
        } else if matches!(self.shape, Shape::Single) {
            dhat::assert!(
                blocks >= OPS,
                "{what}: expected one allocation per accepted update"
            );
        }
    }
}

/// dashmap's locks park threads through parking_lot_core, which creates a process-wide hash table
/// on the first park and grows it with the number of threads alive: one-time allocations that
/// would otherwise land in whichever window first contends. Park (without sleeping) from as many
/// threads at once as any shape uses, so the table exists at its final size before measuring.
fn presize_parking_table() {
    let threads = SHAPES.iter().map(|s| s.threads()).max().unwrap_or(1);
    let all_alive = std::sync::Barrier::new(threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let key = 0u8;
                // SAFETY: the key is the address of a local this thread owns, so no other
                // primitive parks on it; `validate` returns false, so the thread never sleeps and
                // nothing can be left waiting; the callbacks neither panic nor call parking_lot.
                unsafe {
                    parking_lot_core::park(
                        std::ptr::from_ref(&key) as usize,
                        || false,
                        || {},
                        |_, _| {},
                        parking_lot_core::DEFAULT_PARK_TOKEN,
                        None,
                    );
                }
                all_alive.wait();
            });
        }
    });
}

#[test]
fn steady_state_allocations_match_each_design_claim() {
    presize_parking_table();
    let _profiler = dhat::Profiler::builder().testing().build();
    for shape in SHAPES {
        for ids in [Ids::Sequence, Ids::Replicated] {
            for_each_implementation(&mut SteadyState { shape, ids });
        }
    }
}

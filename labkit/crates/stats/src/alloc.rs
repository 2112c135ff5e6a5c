//! A counting global allocator over the system allocator.
//!
//! Counters are relaxed atomics: they are exact once the measured threads have joined (or met at a
//! barrier, which synchronises), and cheap enough for allocation runs. Timing binaries must not
//! install this allocator: every allocation would add shared-counter traffic to what is timed.
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: labkit::alloc::CountingAlloc = labkit::alloc::CountingAlloc;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static DEALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES_ALLOCATED: AtomicU64 = AtomicU64::new(0);
static LARGE_ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
// Live totals move both ways; they are kept as wrapping u64 and read as differences.
static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE_USABLE_BYTES: AtomicU64 = AtomicU64::new(0);
// The high-water mark of LIVE_BYTES since the last `reset_peak`.
static PEAK_LIVE_BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // Set while a thread works for the measuring side rather than for the system measured (a
    // load generator beside a server): its allocations are neither counted nor tracked.
    static UNCOUNTED: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread's allocations count (during thread teardown, when the flag is gone, they
/// do).
fn counted() -> bool {
    !UNCOUNTED.try_with(Cell::get).unwrap_or(false)
}

/// Runs `work` on this thread with its allocations and frees left out of every counter. What
/// `work` allocates and frees itself balances out; a block that crosses the boundary (allocated
/// inside and freed outside, or the reverse) would skew the live counts, so keep such blocks few
/// and small.
pub fn uncounted<R>(work: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = UNCOUNTED.try_with(|u| u.set(self.0));
        }
    }
    let _restore = Restore(UNCOUNTED.with(|u| u.replace(true)));
    work()
}

/// Allocations of at least this many bytes are also counted apart: buffers the size of a response
/// body, where the small blocks of connections, maps and tasks would hide them.
pub const LARGE_BLOCK: usize = 128 << 10;

/// `System` with counters. A `realloc` counts as one deallocation plus one allocation of the new
/// size, the way DHAT and JMH's `gc.alloc.rate.norm` see a grown block.
pub struct CountingAlloc;

/// Bytes the allocator really reserved for a block (glibc rounds up and adds headers).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn usable_size(ptr: *mut u8, _requested: usize) -> u64 {
    // SAFETY: `ptr` is a live block returned by `System`, which on linux-gnu is glibc's malloc
    // family (malloc / calloc / realloc / posix_memalign); malloc_usable_size accepts exactly
    // those pointers and only reads the chunk header. Exercised by `usable_size_covers_request`.
    unsafe { libc::malloc_usable_size(ptr.cast()) as u64 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn usable_size(_ptr: *mut u8, requested: usize) -> u64 {
    requested as u64
}

fn count_alloc(ptr: *mut u8, size: usize) {
    if ptr.is_null() {
        return;
    }
    ALLOCATIONS.fetch_add(1, Relaxed);
    BYTES_ALLOCATED.fetch_add(size as u64, Relaxed);
    if size >= LARGE_BLOCK {
        LARGE_ALLOCATIONS.fetch_add(1, Relaxed);
    }
    let live = LIVE_BYTES
        .fetch_add(size as u64, Relaxed)
        .wrapping_add(size as u64);
    PEAK_LIVE_BYTES.fetch_max(live, Relaxed);
    LIVE_USABLE_BYTES.fetch_add(usable_size(ptr, size), Relaxed);
}

fn count_dealloc(ptr: *mut u8, size: usize) {
    DEALLOCATIONS.fetch_add(1, Relaxed);
    LIVE_BYTES.fetch_sub(size as u64, Relaxed);
    LIVE_USABLE_BYTES.fetch_sub(usable_size(ptr, size), Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only
// updates counters around the call, so `System`'s guarantees carry over. The usable size of a
// block is read while the block is still live (before dealloc/realloc, after alloc).
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract of `GlobalAlloc::alloc`.
        let ptr = unsafe { System.alloc(layout) };
        if counted() {
            count_alloc(ptr, layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract of `GlobalAlloc::alloc_zeroed`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if counted() {
            count_alloc(ptr, layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counted() {
            count_dealloc(ptr, layout.size());
        }
        // SAFETY: forwarded contract of `GlobalAlloc::dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let counted = counted();
        let old_usable = if counted {
            usable_size(ptr, layout.size())
        } else {
            0
        };
        // SAFETY: forwarded contract of `GlobalAlloc::realloc`.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if counted && !new_ptr.is_null() {
            DEALLOCATIONS.fetch_add(1, Relaxed);
            LIVE_BYTES.fetch_sub(layout.size() as u64, Relaxed);
            LIVE_USABLE_BYTES.fetch_sub(old_usable, Relaxed);
            count_alloc(new_ptr, new_size);
        }
        new_ptr
    }
}

/// The counters at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocSnapshot {
    pub allocations: u64,
    pub deallocations: u64,
    pub bytes_allocated: u64,
    pub large_allocations: u64,
    live_bytes: u64,
    live_usable_bytes: u64,
    peak_live_bytes: u64,
}

/// Starts a new high-water mark of live heap bytes at the current live heap.
pub fn reset_peak() {
    PEAK_LIVE_BYTES.store(LIVE_BYTES.load(Relaxed), Relaxed);
}

/// What happened between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocDelta {
    pub allocations: u64,
    pub deallocations: u64,
    pub bytes_allocated: u64,
    /// Allocations of at least [`LARGE_BLOCK`] bytes (a `realloc` to such a size counts).
    pub large_allocations: u64,
    /// Change of requested live bytes (negative when memory was released).
    pub live_bytes: i64,
    /// Change of live bytes as the allocator reserved them (includes rounding and headers).
    pub live_usable_bytes: i64,
    /// How far live bytes rose above their level at the first snapshot, at their highest before
    /// the second (taken [`reset_peak`] right before the first snapshot).
    pub peak_growth: u64,
}

impl AllocSnapshot {
    pub fn now() -> Self {
        Self {
            allocations: ALLOCATIONS.load(Relaxed),
            deallocations: DEALLOCATIONS.load(Relaxed),
            bytes_allocated: BYTES_ALLOCATED.load(Relaxed),
            large_allocations: LARGE_ALLOCATIONS.load(Relaxed),
            live_bytes: LIVE_BYTES.load(Relaxed),
            live_usable_bytes: LIVE_USABLE_BYTES.load(Relaxed),
            peak_live_bytes: PEAK_LIVE_BYTES.load(Relaxed),
        }
    }

    /// Counters from `self` to `later`.
    pub fn delta_to(&self, later: &AllocSnapshot) -> AllocDelta {
        AllocDelta {
            allocations: later.allocations - self.allocations,
            deallocations: later.deallocations - self.deallocations,
            bytes_allocated: later.bytes_allocated - self.bytes_allocated,
            large_allocations: later.large_allocations - self.large_allocations,
            live_bytes: later.live_bytes.wrapping_sub(self.live_bytes) as i64,
            live_usable_bytes: later.live_usable_bytes.wrapping_sub(self.live_usable_bytes) as i64,
            peak_growth: later.peak_live_bytes.saturating_sub(self.live_bytes),
        }
    }
}

/// Whether [`CountingAlloc`] is this process's global allocator. Measurement binaries check it so
/// that a missing `#[global_allocator]` gives an error instead of a table of zeros.
pub fn installed() -> bool {
    let before = AllocSnapshot::now();
    let probe = std::hint::black_box(Box::new(0u64));
    let after = AllocSnapshot::now();
    drop(probe);
    after.allocations > before.allocations
}

/// Held by every test that drives [`CountingAlloc`] by hand (the test binary does not install it):
/// the counters are global, and another such test's free between a snapshot and a block (CI saw
/// a 64-byte realloc land there) lowers the level a peak is measured from. Public for the tests of
/// the layers above, which drive it too.
pub static DRIVEN_DIRECTLY: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usable_size_covers_request() {
        for size in [1usize, 8, 24, 100, 4096, 1 << 20] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: non-zero size layout; the block is freed below with the same layout.
            let ptr = unsafe { System.alloc(layout) };
            assert!(!ptr.is_null());
            let usable = usable_size(ptr, size);
            assert!(usable >= size as u64, "usable {usable} < requested {size}");
            // SAFETY: `ptr` came from `System.alloc(layout)` above.
            unsafe { System.dealloc(ptr, layout) };
        }
    }

    #[test]
    fn counting_alloc_tracks_alloc_realloc_dealloc() {
        let _alone = DRIVEN_DIRECTLY.lock().unwrap_or_else(|e| e.into_inner());
        // The counters are global; this test drives the allocator directly and checks its own
        // contribution through the returned pointers, not through other tests' traffic.
        let a = CountingAlloc;
        let layout = Layout::from_size_align(64, 8).unwrap();
        let before = AllocSnapshot::now();
        // SAFETY: valid non-zero layout; the block is reallocated then freed with matching layouts.
        unsafe {
            let p = a.alloc(layout);
            assert!(!p.is_null());
            let q = a.realloc(p, layout, 256);
            assert!(!q.is_null());
            a.dealloc(q, Layout::from_size_align(256, 8).unwrap());
        }
        let d = before.delta_to(&AllocSnapshot::now());
        assert!(d.allocations >= 2);
        assert!(d.deallocations >= 2);
        assert!(d.bytes_allocated >= 64 + 256);
    }

    #[test]
    fn an_uncounted_scope_turns_counting_off_for_this_thread_only() {
        assert!(counted());
        let other_thread_counts = uncounted(|| {
            assert!(!counted());
            let nested = uncounted(counted);
            assert!(
                !nested && !counted(),
                "a nested scope restores the outer one"
            );
            std::thread::spawn(counted).join().unwrap()
        });
        assert!(other_thread_counts, "another thread still counts");
        assert!(counted(), "restored after the scope");
    }

    #[test]
    fn the_peak_is_the_highest_live_level_since_the_reset() {
        let _alone = DRIVEN_DIRECTLY.lock().unwrap_or_else(|e| e.into_inner());
        let a = CountingAlloc;
        let big = Layout::from_size_align(1 << 20, 8).unwrap();
        reset_peak();
        let before = AllocSnapshot::now();
        // SAFETY: valid non-zero layout; freed below with the same layout.
        unsafe {
            let p = a.alloc(big);
            assert!(!p.is_null());
            a.dealloc(p, big);
        }
        let d = before.delta_to(&AllocSnapshot::now());
        assert!(d.large_allocations >= 1, "a megabyte is a large block");
        assert!(
            d.peak_growth >= 1 << 20,
            "the freed megabyte still counts at its peak: {}",
            d.peak_growth
        );
    }
}

//! Recycled body buffers with their own reference count: the handoff where Pulsar's buffer mode
//! had its race (PR #22494: "a buffer can get released when it is in use").
//!
//! A buffer's count is its state: `0` free, [`CLAIMED`] being filled by one generator, `n ≥ 1`
//! published and held by `n` leases (one per response still writing it, plus the publisher's
//! while it hands leases out). Only a free buffer can be claimed (a compare-and-swap from 0), a
//! lease can only be added to a live one ([`Lease::retain`] refuses 0: retain-only-if-alive), and
//! the last lease dropped makes it free again, for the next generation to overwrite. The claim's
//! acquire reads the count the last release wrote, so every response's reads happen before the
//! next write.
//!
//! Generic over the count and the cell so that the loom model (`tests` below) runs the same code
//! with loom's instrumented types.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// The count of a buffer being filled.
pub const CLAIMED: usize = usize::MAX;

/// The atomic operations the protocol needs (std's and loom's `AtomicUsize`).
pub trait Count: Default + Send + Sync + 'static {
    fn load_acquire(&self) -> usize;
    fn store_release(&self, value: usize);
    /// `compare_exchange` with acquire on success, relaxed on failure.
    fn claim(&self, current: usize, new: usize) -> Result<usize, usize>;
    /// `fetch_sub(1)` with release; returns the previous value.
    fn release_one(&self) -> usize;
}

macro_rules! impl_count {
    ($atomic:ty) => {
        impl Count for $atomic {
            fn load_acquire(&self) -> usize {
                self.load(std::sync::atomic::Ordering::Acquire)
            }
            fn store_release(&self, value: usize) {
                self.store(value, std::sync::atomic::Ordering::Release)
            }
            fn claim(&self, current: usize, new: usize) -> Result<usize, usize> {
                self.compare_exchange(
                    current,
                    new,
                    std::sync::atomic::Ordering::Acquire,
                    std::sync::atomic::Ordering::Relaxed,
                )
            }
            fn release_one(&self) -> usize {
                self.fetch_sub(1, std::sync::atomic::Ordering::Release)
            }
        }
    };
}
impl_count!(std::sync::atomic::AtomicUsize);

/// Where a buffer's bytes live: an `UnsafeCell` (std's, or loom's that checks every access).
///
/// # Safety
/// Implementations hand out access only through these methods; callers uphold the protocol in
/// the module documentation: `with_mut` only while holding the buffer claimed, `with` only while
/// holding a lease.
pub unsafe trait Storage: Default + Send + Sync + 'static {
    /// # Safety
    /// The caller holds a lease on the buffer.
    unsafe fn with<R>(&self, read: impl FnOnce(&Vec<u8>) -> R) -> R;
    /// # Safety
    /// The caller holds the buffer claimed.
    unsafe fn with_mut<R>(&self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R;
}

/// The production storage.
#[derive(Default)]
pub struct Bytes(std::cell::UnsafeCell<Vec<u8>>);

// SAFETY: shared access goes through `with` / `with_mut` only, whose callers follow the count
// protocol: a write (claimed) never overlaps a read (leased), and the claim's acquire orders it
// after every earlier read's release. `tests::*` and the loom model exercise it.
unsafe impl Sync for Bytes {}

// SAFETY: plain forwarding to the cell; exclusivity is the caller's (see the trait).
unsafe impl Storage for Bytes {
    unsafe fn with<R>(&self, read: impl FnOnce(&Vec<u8>) -> R) -> R {
        // SAFETY: the caller holds a lease, so no writer exists (trait contract).
        read(unsafe { &*self.0.get() })
    }
    unsafe fn with_mut<R>(&self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        // SAFETY: the caller holds the buffer claimed, so no reader or other writer exists.
        write(unsafe { &mut *self.0.get() })
    }
}

/// One recyclable buffer.
#[derive(Default)]
pub struct Buffer<C: Count, S: Storage> {
    count: C,
    bytes: S,
}

/// A buffer claimed for filling: no lease exists. (`None` once published.)
pub struct Claimed<C: Count, S: Storage> {
    buffer: Option<Arc<Buffer<C, S>>>,
}

/// A reference to a published buffer; the bytes stay unchanged while it lives.
pub struct Lease<C: Count, S: Storage> {
    buffer: Arc<Buffer<C, S>>,
}

impl<C: Count, S: Storage> Buffer<C, S> {
    /// Claims this buffer if it is free.
    pub fn try_claim(self: &Arc<Self>) -> Option<Claimed<C, S>> {
        self.count.claim(0, CLAIMED).ok().map(|_| Claimed {
            buffer: Some(Arc::clone(self)),
        })
    }

    /// A new buffer, claimed by its creator.
    pub fn claimed() -> Claimed<C, S> {
        let buffer = Arc::new(Self::default());
        buffer.count.store_release(CLAIMED);
        Claimed {
            buffer: Some(buffer),
        }
    }
}

impl<C: Count, S: Storage> Claimed<C, S> {
    fn buffer(&self) -> &Arc<Buffer<C, S>> {
        self.buffer
            .as_ref()
            .expect("a claim holds its buffer until published")
    }

    pub fn fill<R>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        // SAFETY: a `Claimed` exists only for a buffer whose count this value set to CLAIMED
        // (from 0, with acquire, or at creation); no lease exists until `publish`.
        unsafe { self.buffer().bytes.with_mut(write) }
    }

    /// Publishes the bytes: the returned lease is the first of the buffer's count of one.
    pub fn publish(mut self) -> Lease<C, S> {
        let buffer = self.buffer.take().expect("published once");
        buffer.count.store_release(1);
        Lease { buffer }
    }
}

impl<C: Count, S: Storage> Drop for Claimed<C, S> {
    /// A claim given up unpublished frees the buffer again.
    fn drop(&mut self) {
        if let Some(buffer) = &self.buffer {
            buffer.count.store_release(0);
        }
    }
}

impl<C: Count, S: Storage> Lease<C, S> {
    /// Another lease on the same bytes; `None` once the buffer is no longer published (its
    /// count fell to 0, or it was claimed again), so a stale reference can never read
    /// recycled bytes.
    pub fn retain(&self) -> Option<Self> {
        retain(&self.buffer)
    }

    pub fn read<R>(&self, read: impl FnOnce(&[u8]) -> R) -> R {
        // SAFETY: this lease keeps the count ≥ 1, so the buffer cannot be claimed meanwhile.
        unsafe { self.buffer.bytes.with(|bytes| read(bytes)) }
    }
}

/// A lease on `buffer` if it is published (only through a lease already held, so never on a
/// buffer recycled meanwhile).
fn retain<C: Count, S: Storage>(buffer: &Arc<Buffer<C, S>>) -> Option<Lease<C, S>> {
    let mut current = buffer.count.load_acquire();
    loop {
        if current == 0 || current == CLAIMED {
            return None;
        }
        match buffer.count.claim(current, current + 1) {
            Ok(_) => {
                return Some(Lease {
                    buffer: Arc::clone(buffer),
                });
            }
            Err(actual) => current = actual,
        }
    }
}

impl<C: Count, S: Storage> Drop for Lease<C, S> {
    fn drop(&mut self) {
        self.buffer.count.release_one();
    }
}

impl AsRef<[u8]> for Lease<std::sync::atomic::AtomicUsize, Bytes> {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: as in `read`; the slice borrows `self`, so it cannot outlive the lease.
        unsafe { &*self.buffer.bytes.0.get() }
    }
}

/// The production buffer types.
pub type PooledBuffer = Buffer<std::sync::atomic::AtomicUsize, Bytes>;
pub type PooledLease = Lease<std::sync::atomic::AtomicUsize, Bytes>;

/// The buffers of one endpoint: a fixed number, made up front and taken in turn. Taking them in
/// turn fills each within the first generations (its `Vec` grows then, once), so a steady state
/// allocates no body buffer however the responses interleave; the fixed number bounds the bodies
/// held at once while clients keep reading (the write-up's fix capped generation for the same
/// reason: more concurrent results ran the broker out of memory). When every buffer is still held
/// by responses being written, a claim waits for one to come free, but only so long: past its
/// patience it takes a new buffer outside the pool, freed with its last response, so a scraper
/// that stops reading delays the others by at most that much instead of holding them all.
pub struct BufferPool {
    buffers: Vec<Arc<PooledBuffer>>,
    /// The buffer whose turn it is. Claims come from one generator thread; atomic only so the
    /// pool is `Sync`.
    next: AtomicUsize,
    /// Claims that took a buffer outside the pool.
    overflows: AtomicUsize,
}

/// How often a claim that found every buffer held looks again. It waits on responses being
/// written to clients, which takes a fraction of a millisecond per MiB on loopback, so a poll
/// well below that wastes little of the wait, on the generator's own thread.
const CLAIM_POLL: Duration = Duration::from_micros(50);

impl BufferPool {
    /// A pool of `buffers` buffers (at least one), empty until their first generation.
    pub fn new(buffers: usize) -> Self {
        Self {
            buffers: (0..buffers.max(1))
                .map(|_| Arc::new(PooledBuffer::default()))
                .collect(),
            next: AtomicUsize::new(0),
            overflows: AtomicUsize::new(0),
        }
    }

    /// The buffer whose turn it is, or the next free one after it, claimed; while every buffer is
    /// held, waits up to `patience` for one, then takes a new buffer outside the pool.
    pub fn claim(&self, patience: Duration) -> Claimed<std::sync::atomic::AtomicUsize, Bytes> {
        let started = Instant::now();
        loop {
            if let Some(claimed) = self.try_claim() {
                return claimed;
            }
            if started.elapsed() >= patience {
                self.overflows.fetch_add(1, Relaxed);
                return PooledBuffer::claimed();
            }
            std::thread::sleep(CLAIM_POLL);
        }
    }

    /// As [`BufferPool::claim`], `None` instead of waiting.
    pub fn try_claim(&self) -> Option<Claimed<std::sync::atomic::AtomicUsize, Bytes>> {
        let count = self.buffers.len();
        let turn = self.next.load(Relaxed);
        (0..count).map(|i| (turn + i) % count).find_map(|i| {
            let claimed = self.buffers[i].try_claim()?;
            self.next.store((i + 1) % count, Relaxed);
            Some(claimed)
        })
    }

    /// How many buffers the pool holds (its bound on bodies held at once while clients read).
    pub fn buffers(&self) -> usize {
        self.buffers.len()
    }

    /// Claims that ran out of patience and took a buffer outside the pool.
    pub fn overflows(&self) -> usize {
        self.overflows.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_is_reclaimed_only_after_its_last_lease() {
        let pool = BufferPool::new(2);
        let mut claimed = pool.claim(Duration::ZERO);
        claimed.fill(|b| b.extend_from_slice(b"generation 1"));
        let publisher = claimed.publish();
        let responses: Vec<_> = (0..3).map(|_| publisher.retain().unwrap()).collect();
        drop(publisher);
        let second = pool.claim(Duration::ZERO);
        assert!(
            pool.try_claim().is_none(),
            "the leased buffer is not handed out again, and the pool makes no third"
        );
        assert_eq!(pool.overflows(), 0);
        drop(second);
        for r in &responses {
            assert_eq!(r.as_ref(), b"generation 1");
        }
        let stale = responses[0].buffer.clone();
        drop(responses);
        assert_eq!(
            Arc::strong_count(&stale),
            2,
            "only the pool and this test hold it"
        );
        assert!(retain(&stale).is_none(), "retain refuses a released buffer");
        let mut again = pool.claim(Duration::ZERO);
        again.fill(|b| {
            assert_eq!(b, b"generation 1", "the same storage is reused, in turn");
            b.clear();
        });
        assert_eq!(pool.buffers(), 2);
        assert!(retain(&stale).is_none(), "and a claimed one");
    }

    #[test]
    fn buffers_are_taken_in_turn_so_the_first_generations_fill_each_once() {
        let pool = BufferPool::new(3);
        for generation in 0..6u8 {
            let mut claimed = pool.claim(Duration::ZERO);
            claimed.fill(|b| {
                let expected: &[u8] = if generation < 3 {
                    &[]
                } else {
                    &[generation - 3]
                };
                assert_eq!(b.as_slice(), expected, "generation {generation}");
                b.clear();
                b.push(generation);
            });
            drop(claimed.publish());
        }
    }

    #[test]
    fn a_claim_waits_while_every_buffer_is_held_and_takes_the_first_one_freed() {
        let pool = Arc::new(BufferPool::new(1));
        let mut claimed = pool.claim(Duration::ZERO);
        claimed.fill(|b| b.push(1));
        let lease = claimed.publish();
        let claimed_again = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let waiter = {
            let (pool, claimed_again) = (Arc::clone(&pool), Arc::clone(&claimed_again));
            std::thread::spawn(move || {
                let mut claimed = pool.claim(Duration::from_secs(600));
                claimed_again.store(true, Relaxed);
                claimed.fill(|b| b[0] = 2);
            })
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            !claimed_again.load(Relaxed),
            "claimed while the only buffer was leased"
        );
        assert_eq!(lease.as_ref(), [1]);
        drop(lease);
        waiter.join().unwrap();
        assert!(claimed_again.load(Relaxed));
        assert_eq!(pool.overflows(), 0, "the pooled buffer was taken");
    }

    #[test]
    fn a_claim_past_its_patience_takes_a_new_buffer_outside_the_pool() {
        let pool = BufferPool::new(1);
        let mut claimed = pool.claim(Duration::ZERO);
        claimed.fill(|b| b.push(1));
        let lease = claimed.publish();
        let mut overflow = pool.claim(Duration::from_millis(5));
        overflow.fill(|b| {
            assert!(b.is_empty(), "a new buffer, not the leased one");
            b.push(2);
        });
        let extra = overflow.publish();
        assert_eq!((lease.as_ref(), extra.as_ref()), (&[1][..], &[2][..]));
        assert_eq!((pool.overflows(), pool.buffers()), (1, 1));
        let outside = Arc::clone(&extra.buffer);
        drop(extra);
        assert_eq!(
            Arc::strong_count(&outside),
            1,
            "the pool keeps no reference: the buffer goes with its last lease"
        );
    }

    /// Exhaustive interleavings of the handoff with loom's instrumented count and cell: two
    /// responses read their leased bytes and release them, the publisher drops its lease, and
    /// the generator tries to claim the buffer for the next generation, all at once. Loom fails
    /// the model if the generator's write can overlap (or is not ordered after) any read; the
    /// asserts, if a response can see bytes other than the generation it was handed.
    mod loom_model {
        use super::super::*;
        use loom::sync::atomic::AtomicUsize as LoomUsize;

        impl_count!(LoomUsize);

        #[derive(Default)]
        struct LoomBytes(loom::cell::UnsafeCell<Vec<u8>>);

        // SAFETY: loom's cell checks every access itself; this only lets the model share it.
        unsafe impl Sync for LoomBytes {}

        // SAFETY: forwards to loom's cell, which reports any overlapping access.
        unsafe impl Storage for LoomBytes {
            unsafe fn with<R>(&self, read: impl FnOnce(&Vec<u8>) -> R) -> R {
                // SAFETY: the caller holds a lease (trait contract); loom checks it.
                self.0.with(|bytes| read(unsafe { &*bytes }))
            }
            unsafe fn with_mut<R>(&self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
                // SAFETY: the caller holds the claim (trait contract); loom checks it.
                self.0.with_mut(|bytes| write(unsafe { &mut *bytes }))
            }
        }

        type ModelBuffer = Buffer<LoomUsize, LoomBytes>;

        #[test]
        fn the_next_generation_never_overwrites_a_buffer_a_response_still_reads() {
            loom::model(|| {
                let buffer = Arc::new(ModelBuffer::default());
                let mut claimed = buffer.try_claim().expect("a new buffer is free");
                claimed.fill(|bytes| bytes.push(1));
                let publisher = claimed.publish();
                let responses = [publisher.retain().unwrap(), publisher.retain().unwrap()];
                let readers: Vec<_> = responses
                    .into_iter()
                    .map(|lease| {
                        loom::thread::spawn(move || {
                            lease.read(|bytes| assert_eq!(bytes, [1]));
                            lease.read(|bytes| assert_eq!(bytes, [1], "changed while leased"));
                        })
                    })
                    .collect();
                let next = Arc::clone(&buffer);
                let generator = loom::thread::spawn(move || {
                    if let Some(mut claimed) = next.try_claim() {
                        claimed.fill(|bytes| bytes[0] = 2);
                        drop(claimed.publish());
                    }
                });
                drop(publisher);
                for thread in readers.into_iter().chain([generator]) {
                    thread.join().unwrap();
                }
            });
        }
    }
}

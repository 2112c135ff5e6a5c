package labkit;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A measured window over several threads, as the Rust side's `labkit::threads::timed_threads`:
 * every thread does its untimed preparation, all are released together once all are ready, and
 * the window runs from the first thread's release to the last thread's end, each read by the
 * thread itself (a coordinating thread woken after the release, on oversubscribed cores, would
 * start the clock after some workers had finished). One body runs on the calling thread, with no
 * spawn or barrier. What each thread allocates after its gate is summed ({@code ThreadMXBean},
 * what JMH's {@code gc.alloc.rate.norm} reads).
 */
public final class TimedThreads {
    /** One thread's work: what it does before {@link Gate#pass()} is untimed preparation. */
    public interface Body {
        void run(Gate gate) throws Exception;
    }

    /** Where a body waits for the measured window. Passing again does nothing. */
    public static final class Gate {
        private final Runnable pass;
        private boolean passed;
        private long allocatedAtPass;
        private long passedAt;

        Gate(Runnable pass) {
            this.pass = pass;
        }

        public void pass() {
            if (passed) {
                return;
            }
            passed = true;
            pass.run();
            allocatedAtPass = allocatedByThisThread();
            passedAt = System.nanoTime();
        }

        /** What this thread allocated since it passed (nothing if it never did). */
        long allocatedSincePass() {
            return passed ? allocatedByThisThread() - allocatedAtPass : 0;
        }
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long allocatedByThisThread() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    private TimedThreads() {}

    /** Runs each body on a fresh thread of its own (one body: on this thread); see the class. */
    public static Sample run(List<Body> bodies) throws Exception {
        if (bodies.size() == 1) {
            Gate gate = new Gate(() -> {});
            bodies.get(0).run(gate);
            gate.pass();
            long elapsed = System.nanoTime() - gate.passedAt;
            return new Sample(elapsed, gate.allocatedSincePass());
        }
        int n = bodies.size();
        CyclicBarrier ready = new CyclicBarrier(n);
        AtomicLong allocated = new AtomicLong();
        AtomicLong firstRelease = new AtomicLong(Long.MAX_VALUE);
        AtomicLong lastEnd = new AtomicLong(Long.MIN_VALUE);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(n);
        for (Body body : bodies) {
            Thread thread = new Thread(() -> {
                Gate gate = new Gate(() -> await(ready));
                try {
                    body.run(gate);
                } catch (Throwable t) {
                    failed.compareAndSet(null, t);
                }
                gate.pass();
                long end = System.nanoTime();
                firstRelease.accumulateAndGet(gate.passedAt, Math::min);
                lastEnd.accumulateAndGet(end, Math::max);
                allocated.addAndGet(gate.allocatedSincePass());
            });
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        long elapsed = lastEnd.get() - firstRelease.get();
        if (failed.get() != null) {
            Throwable t = failed.get();
            throw t instanceof Exception ? (Exception) t : new RuntimeException(t);
        }
        return new Sample(elapsed, allocated.get());
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException("a measured thread was interrupted", e);
        }
    }
}

package dedup;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import labkit.Case;
import labkit.JvmLab;
import labkit.Sample;
import labkit.Sink;
import labkit.TimedThreads;
import labkit.Trace;
import labkit.TracedCalls;

/**
 * dedup-lab's JVM side: PR #26763's two arms on a real {@code ConcurrentHashMap<String, Long>}
 * ({@code jvm-monitor}, {@code jvm-replace}) and the JVM harness floor, on the Rust side's
 * {@code admission} shapes and {@code footprint} growth cases.
 */
public final class DedupLab implements JvmLab {
    static Supplier<Dedup> design(String name) {
        return JvmLab.design(name, Map.<String, Supplier<Dedup>>of(
                "jvm-monitor", Monitor::new,
                "jvm-replace", Replace::new,
                "jvm-harness-floor", Floor::new));
    }

    @Override
    public Case open(String design, String experiment, String parameter) {
        Supplier<Dedup> make = design(design);
        switch (experiment) {
            case "admission":
                return new Admission(make.get(), Shape.named(parameter));
            case "footprint":
                return new Footprint(make, parameter);
            default:
                throw new IllegalArgumentException(
                        "dedup's JVM designs do not run `" + experiment + "`");
        }
    }

    /** A deduplicator with a shape's producers connected, each having admitted its first id. */
    static final class Admission implements Case {
        private final Dedup dedup;
        private final List<Worker> workers;

        Admission(Dedup dedup, Shape shape) {
            this.dedup = dedup;
            this.workers = shape.prepare(dedup);
        }

        @Override
        public Sample run(long warmUp, long ops) throws Exception {
            List<TimedThreads.Body> bodies = new ArrayList<>();
            for (Worker worker : workers) {
                bodies.add(gate -> {
                    Sink.consume(worker.run(dedup, warmUp));
                    worker.lostRaces = 0;
                    gate.pass();
                    Sink.consume(worker.run(dedup, ops));
                });
            }
            Sample sample = TimedThreads.run(bodies);
            long lost = 0;
            for (Worker worker : workers) {
                lost += worker.lostRaces;
            }
            return lost > 0 ? sample.count("lost-races", lost) : sample;
        }
    }

    /**
     * One message from each of n producers (names made as they connect, as they arrive over the
     * network), then all but the newest kept ones purged: the Rust side's `footprint` cases,
     * {@code 1000-producers} or {@code 100000-producers-purged-to-10000}.
     */
    static final class Footprint implements Case.Retained {
        private final Supplier<Dedup> make;
        private final int producers;
        private final int kept;

        Footprint(Supplier<Dedup> make, String parameter) {
            this.make = make;
            String[] parts = parameter.split("-producers");
            this.producers = Integer.parseInt(parts[0]);
            this.kept = parts.length > 1 && parts[1].startsWith("-purged-to-")
                    ? Integer.parseInt(parts[1].substring("-purged-to-".length()))
                    : producers;
        }

        @Override
        public Object build() {
            Dedup dedup = make.get();
            for (int i = 0; i < producers; i++) {
                dedup.admit(dedup.connect("producer-" + i), 0, 0);
            }
            for (int i = 0; i < producers - kept; i++) {
                dedup.purge("producer-" + i);
            }
            return dedup;
        }
    }

    /**
     * The first {@code n} calls of the shape's workers on {@code jvm-monitor} from their
     * preparation on, the workers taking turns one operation at a time, every call recorded with
     * its answer: the Rust side's trace of the same shape must give the same checksum.
     */
    @Override
    public long trace(String experiment, String parameter, long n) {
        if (!experiment.equals("admission")) {
            throw new IllegalArgumentException("no trace of `" + experiment + "`");
        }
        Trace trace = new Trace(n);
        Dedup traced = new Traced(new Monitor(), trace);
        List<Worker> workers = Shape.named(parameter).prepare(traced);
        for (long op = 0; trace.recording(); op++) {
            workers.get((int) (op % workers.size())).admitNext(traced);
        }
        return trace.checksum();
    }

    /** Every call of a deduplicator recorded in a trace, with its answer. */
    static final class Traced extends TracedCalls<Dedup> implements Dedup {
        Traced(Dedup inner, Trace trace) {
            super(inner, trace);
        }

        @Override
        public Object connect(String producer) {
            trace.text(producer).op(1);
            return inner.connect(producer);
        }

        @Override
        public int admit(Object producer, long low, long high) {
            int status = inner.admit(producer, low, high);
            trace.text((String) producer).op(2, low, high, status);
            return status;
        }

        @Override
        public void recordPersisted(Object producer, long high) {
            trace.text((String) producer).op(3, high);
            inner.recordPersisted(producer, high);
        }

        @Override
        public long highestPushed(String producer) {
            long pushed = inner.highestPushed(producer);
            trace.text(producer).op(4, pushed);
            return pushed;
        }

        @Override
        public void purge(String producer) {
            trace.text(producer).op(5);
            inner.purge(producer);
        }
    }

    /**
     * Pulsar's {@code MessageDuplicationTest.testIsDuplicate} step by step, and a 32-thread race
     * on one producer: each id admitted exactly once, pushed never going backwards.
     */
    @Override
    public void check(String design) throws Exception {
        if (design.equals("jvm-harness-floor")) {
            return; // admits every duplicate: not a design, no correctness suite
        }
        Supplier<Dedup> make = design(design);
        Dedup d = make.get();
        Object p = d.connect("producer1");
        expect(d.admit(p, 0, 0), Dedup.NOT_DUP, "step 1, seq 0");
        expect(d.admit(p, 1, 1), Dedup.NOT_DUP, "step 1, seq 1");
        expect(d.admit(p, 5, 5), Dedup.NOT_DUP, "step 1, seq 5");
        expect(d.admit(p, 0, 0), Dedup.UNKNOWN, "step 2: nothing persisted");
        d.recordPersisted(p, 0);
        expect(d.admit(p, 0, 0), Dedup.DUP, "step 3: persisted 0");
        Dedup fresh = make.get();
        Object q = fresh.connect("producer1");
        fresh.admit(q, 0, 0);
        fresh.recordPersisted(q, 0);
        expect(fresh.admit(q, 1, 5), Dedup.NOT_DUP, "step 4: batch 1..5");
        expect(fresh.highestPushed("producer1"), 5, "step 4: pushed");
        expect(fresh.admit(q, 4, 8), Dedup.UNKNOWN, "step 5: batch 4..8");
        expect(fresh.highestPushed("producer1"), 5, "step 5: pushed unchanged");
        race(make.get());
    }

    private static void race(Dedup dedup) throws Exception {
        int threads = 32;
        long ids = 2_000;
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger backwards = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> racers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread racer = new Thread(() -> {
                Object producer = dedup.connect("raced");
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long seen = -1;
                for (long id = 0; id < ids; id++) {
                    if (dedup.admit(producer, id, id) == Dedup.NOT_DUP) {
                        admitted.incrementAndGet();
                    }
                    long pushed = dedup.highestPushed("raced");
                    if (pushed < seen) {
                        backwards.incrementAndGet();
                    }
                    seen = pushed;
                }
            });
            racers.add(racer);
            racer.start();
        }
        start.countDown();
        for (Thread racer : racers) {
            racer.join();
        }
        expect(admitted.get(), ids, "32 racers: each id admitted exactly once");
        expect(backwards.get(), 0, "32 racers: pushed never goes backwards");
        expect(dedup.highestPushed("raced"), ids - 1, "32 racers: pushed ends at the last id");
    }

    private static void expect(long got, long want, String what) {
        if (got != want) {
            throw new AssertionError(what + ": expected " + want + ", got " + got);
        }
    }
}

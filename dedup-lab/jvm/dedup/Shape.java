package dedup;

import java.util.ArrayList;
import java.util.List;

/**
 * How admissions are spread over threads and producers: the Rust side's `workload::Shape`, by the
 * same names, preparing the same producers with the same first messages.
 */
final class Shape {
    enum Kind { SINGLE, DUPLICATE, DISTINCT, SHARED, SHARED_INCREMENT, IOT }

    /** The duplicate shape's watermarks, set before measuring. */
    static final long DUPLICATE_PUSHED = 1L << 20;
    static final long DUPLICATE_PERSISTED = 1L << 19;

    final Kind kind;
    final int threads;
    final int producers;

    private Shape(Kind kind, int threads, int producers) {
        this.kind = kind;
        this.threads = threads;
        this.producers = producers;
    }

    /** The shape a parameter names: `single`, `distinct-16`, `shared-increment-2`, `iot-500`. */
    static Shape named(String name) {
        if (name.equals("single")) {
            return new Shape(Kind.SINGLE, 1, 1);
        }
        if (name.equals("duplicate")) {
            return new Shape(Kind.DUPLICATE, 1, 1);
        }
        if (name.startsWith("shared-increment-")) {
            return new Shape(Kind.SHARED_INCREMENT, count(name, "shared-increment-"), 1);
        }
        if (name.startsWith("distinct-")) {
            int threads = count(name, "distinct-");
            return new Shape(Kind.DISTINCT, threads, threads);
        }
        if (name.startsWith("shared-")) {
            return new Shape(Kind.SHARED, count(name, "shared-"), 1);
        }
        if (name.startsWith("iot-")) {
            // Pulsar's iot-telemetry scenario: its producers round-robin over two threads.
            return new Shape(Kind.IOT, 2, count(name, "iot-"));
        }
        throw new IllegalArgumentException("unknown shape `" + name + "`");
    }

    private static int count(String name, String prefix) {
        return Integer.parseInt(name.substring(prefix.length()));
    }

    private static String producer(int i) {
        return "producer-" + i;
    }

    /**
     * Connects the shape's producers, admits each one's first message (id 0), sets the duplicate
     * shape's watermarks, and returns one worker per thread.
     */
    List<Worker> prepare(Dedup dedup) {
        List<Worker> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<Object> own = new ArrayList<>();
            String increments = null;
            switch (kind) {
                case SINGLE:
                case DUPLICATE:
                case SHARED:
                    own.add(dedup.connect(producer(0)));
                    break;
                case SHARED_INCREMENT:
                    own.add(dedup.connect(producer(0)));
                    increments = producer(0);
                    break;
                case DISTINCT:
                    own.add(dedup.connect(producer(t)));
                    break;
                case IOT:
                    for (int p = t; p < producers; p += threads) {
                        own.add(dedup.connect(producer(p)));
                    }
                    break;
                default:
                    throw new IllegalStateException();
            }
            workers.add(new Worker(own, kind == Kind.DUPLICATE, increments));
        }
        for (Worker worker : workers) {
            for (Object producer : worker.producers) {
                dedup.admit(producer, 0, 0);
            }
        }
        if (kind == Kind.DUPLICATE) {
            Object producer = workers.get(0).producers.get(0);
            dedup.admit(producer, DUPLICATE_PUSHED, DUPLICATE_PUSHED);
            dedup.recordPersisted(producer, DUPLICATE_PERSISTED);
        }
        return workers;
    }
}

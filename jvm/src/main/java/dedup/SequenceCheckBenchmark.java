package dedup;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * PR #26763's admission benchmark, for the workload of apache/pulsar's
 * {@code microbench/src/main/java/org/apache/pulsar/broker/service/MessageDeduplicationSequenceCheckBenchmark.java}
 * at revision 1eef14bb7c73: one {@code ConcurrentHashMap<String, Long>} per trial, holding
 * {@code producer-0} … {@code producer-63} at 0; each thread updates its own producer
 * ({@code producer-<thread index>}) with its next sequence id, or, in the shared case, every thread
 * increments {@code producer-0} inside one call. The annotations are the PR's settings; the lab's
 * runs pass theirs on the command line, and its two-thread case is the concurrent one with
 * {@code -t 2}.
 *
 * <p>The {@code iot} pair is the lab's own question: the {@code iot-telemetry} scenario's 500
 * producers, each thread updating its share of them in turn.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class SequenceCheckBenchmark {

    /** The benchmark's map: every producer it names present at 0 before the first call. */
    @State(Scope.Benchmark)
    public static class Topic {
        final Topics.Pushed pushed = new Topics.Pushed(64);
    }

    /** One thread's producer and its sequence ids, strictly increasing across the whole trial. */
    @State(Scope.Thread)
    public static class ProducerAccess {
        String producer;
        long sequenceId;

        @Setup
        public void setup(ThreadParams thread) {
            producer = Topics.name(thread.getThreadIndex());
        }

        long next() {
            return ++sequenceId;
        }
    }

    /** The lab's {@code iot} topic: {@code producers} names present at 0. */
    @State(Scope.Benchmark)
    public static class IotTopic {
        @Param("500")
        public int producers;

        Topics.Pushed pushed;

        @Setup
        public void setup() {
            pushed = new Topics.Pushed(producers);
        }
    }

    /** One thread's share of the {@code iot} producers (every thread count-th one), in turn. */
    @State(Scope.Thread)
    public static class IotAccess {
        String[] producers;
        long[] sequenceIds;
        int cursor;

        @Setup
        public void setup(IotTopic topic, ThreadParams thread) {
            int threads = thread.getThreadCount();
            int own = (topic.producers - thread.getThreadIndex() + threads - 1) / threads;
            producers = new String[own];
            for (int i = 0; i < own; i++) {
                producers[i] = Topics.name(thread.getThreadIndex() + i * threads);
            }
            sequenceIds = new long[own];
        }
    }

    @Benchmark
    @Threads(1)
    public void monitorDistinctSingle(Topic topic, ProducerAccess access) {
        topic.pushed.updateWithMonitor(access.producer, access.next());
    }

    @Benchmark
    @Threads(1)
    public void atomicDistinctSingle(Topic topic, ProducerAccess access) {
        topic.pushed.updateAtomically(access.producer, access.next());
    }

    @Benchmark
    @Threads(16)
    public void monitorDistinctConcurrent(Topic topic, ProducerAccess access) {
        topic.pushed.updateWithMonitor(access.producer, access.next());
    }

    @Benchmark
    @Threads(16)
    public void atomicDistinctConcurrent(Topic topic, ProducerAccess access) {
        topic.pushed.updateAtomically(access.producer, access.next());
    }

    @Benchmark
    @Threads(16)
    public void monitorSharedProducer(Topic topic) {
        topic.pushed.incrementWithMonitor(Topics.SHARED);
    }

    @Benchmark
    @Threads(16)
    public void atomicSharedProducer(Topic topic) {
        topic.pushed.incrementAtomically(Topics.SHARED);
    }

    @Benchmark
    @Threads(2)
    public void monitorIot(IotTopic topic, IotAccess access) {
        int i = access.cursor;
        access.cursor = i + 1 == access.producers.length ? 0 : i + 1;
        topic.pushed.updateWithMonitor(access.producers[i], ++access.sequenceIds[i]);
    }

    @Benchmark
    @Threads(2)
    public void atomicIot(IotTopic topic, IotAccess access) {
        int i = access.cursor;
        access.cursor = i + 1 == access.producers.length ? 0 : i + 1;
        topic.pushed.updateAtomically(access.producers[i], ++access.sequenceIds[i]);
    }
}

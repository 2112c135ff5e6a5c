package dedup;

import labkit.Sink;

/**
 * {@code jvm-harness-floor}: not a design, the JVM harness alone behind the same calls. It keeps
 * nothing: every admission is NotDup and every id goes to the sink, so the workload's ids, the
 * calls and the threads cost what they cost anyway. Measured like a design so that a JVM cell can
 * be shown net of the JVM's harness, as a Rust cell is net of the Rust one.
 */
final class Floor implements Dedup {
    @Override
    public Object connect(String producer) {
        return producer;
    }

    @Override
    public int admit(Object producer, long low, long high) {
        Sink.consume(high);
        return NOT_DUP;
    }

    @Override
    public void recordPersisted(Object producer, long high) {
        Sink.consume(high);
    }

    @Override
    public long highestPushed(String producer) {
        return -1;
    }

    @Override
    public void purge(String producer) {}
}

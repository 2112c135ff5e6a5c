package pendingack;

import labkit.Sink;

/**
 * {@code jvm-harness-floor}: not a design, the JVM harness alone behind the same calls: every add
 * is new, every lookup finds one value, a remove hands it back, and a cleanup or scan visits
 * nothing; every key and value goes to the sink, so the workload's key and value generation and
 * the calls cost what they cost anyway. A JVM cell can then be shown net of the JVM's harness, as
 * a Rust cell is net of the Rust one.
 */
final class Floor implements PendingAcks {
    /** Far from both ends of the count's range, so a ±1 update always applies. */
    private static final int REMAINING = 1 << 20;
    private long size;

    @Override
    public boolean addOrReplace(long ledger, long entry, int remaining, int stickyKeyHash) {
        Sink.consume(ledger ^ entry ^ PendingAcks.pack(remaining, stickyKeyHash));
        size++;
        return true;
    }

    @Override
    public int getRemaining(long ledger, long entry) {
        Sink.consume(ledger ^ entry);
        return REMAINING;
    }

    @Override
    public boolean contains(long ledger, long entry) {
        Sink.consume(ledger ^ entry);
        return true;
    }

    @Override
    public long removeAndGet(long ledger, long entry) {
        Sink.consume(ledger ^ entry);
        size = Math.max(0, size - 1);
        return PendingAcks.pack(1, 0);
    }

    @Override
    public boolean updateRemaining(long ledger, long entry, int acked) {
        Sink.consume(ledger ^ entry ^ acked);
        return true;
    }

    @Override
    public void removeAllUpTo(long markLedger, long markEntry, Visitor removed) {
        Sink.consume(markLedger ^ markEntry);
    }

    @Override
    public void forEach(Visitor visitor) {
        Sink.consume(size);
    }

    @Override
    public long size() {
        return size;
    }
}

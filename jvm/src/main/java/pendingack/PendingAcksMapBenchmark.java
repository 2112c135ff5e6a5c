package pendingack;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Draft #26024's benchmark of the pending-ack map, for the workload of apache/pulsar's
 * {@code microbench/src/main/java/org/apache/pulsar/broker/service/PendingAcksMapBenchmark.java}
 * at revision 706d2ab157c6 (the revision with {@code CleanupState} and the rolling window, behind
 * the published tables): the same states at the same scopes and setup levels, the same datasets
 * under the same names, the same operation in one call and the same value returned, for the
 * benchmarks whose numbers the write-up quotes. The annotations are the draft's settings; the
 * lab's runs pass theirs on the command line.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class PendingAcksMapBenchmark {

    @Benchmark
    public boolean addOrReplace(MapState state, CursorState cursor) {
        int i = cursor.next(state.entries);
        return state.store.addPendingAckIfAllowed(state.ledgerIds[i], state.entryIds[i],
                Dataset.remaining(i), Dataset.stickyKeyHash(i));
    }

    @Benchmark
    public boolean updateRemainingUnacked(MapState state, CursorState cursor) {
        int i = cursor.next(state.entries);
        return state.store.updateRemainingUnacked(state.ledgerIds[i], state.entryIds[i], 1);
    }

    @Benchmark
    public int removeAndAddRemaining(MapState state, CursorState cursor) {
        int i = cursor.next(state.entries);
        long ledgerId = state.ledgerIds[i];
        long entryId = state.entryIds[i];
        int removed = state.store.removeAndGetRemainingUnacked(ledgerId, entryId);
        state.store.addPendingAckIfAllowed(ledgerId, entryId,
                removed == PendingAckStore.NOT_FOUND ? Dataset.remaining(i) : removed, Dataset.stickyKeyHash(i));
        return removed;
    }

    @Benchmark
    public long removeAllUpTo(RangeState state) {
        return state.store.removeAllUpTo(state.markDeleteLedgerId, state.markDeleteEntryId);
    }

    @Benchmark
    public long removeAllUpToSameLedger(CleanupState state) {
        return state.store.removeAllUpTo(state.markDeleteLedgerId, state.markDeleteEntryId);
    }

    @Benchmark
    public long dispatchAndAckCycle(RollingWindowState state) {
        return state.dispatchAndAck();
    }

    @Benchmark
    public long dispatchAckAndPartialAckCycle(RollingWindowState state) {
        long result = state.dispatchAndAck();
        if (state.partialAckDue()) {
            result += state.partialAck();
        }
        return result;
    }

    /** A store holding the whole dataset, built once per trial, and its positions in order. */
    @State(Scope.Benchmark)
    public static class MapState {
        @Param({"oldProduction", "production"})
        public String implementation;

        @Param({"receiverQueue1kEntries1Ledger", "batchedReceiverQueue100Entries1Ledger",
                "defaultUnacked50kEntries1Ledger", "defaultUnacked50kEntries2Ledgers",
                "defaultUnacked50kEntries5Ledgers", "defaultUnacked50kEntries10Ledgers",
                "defaultUnacked50kEntries20Ledgers", "residual1kEntries5Ledgers", "residual1kEntries100Ledgers",
                "64kEntries1kLedgers", "1mEntries16kLedgers"})
        public String dataset;

        PendingAckStore store;
        long[] ledgerIds;
        long[] entryIds;
        int entries;

        @Setup(Level.Trial)
        public void setup() {
            Dataset parsed = Dataset.named(dataset);
            entries = parsed.entries;
            ledgerIds = new long[entries];
            entryIds = new long[entries];
            store = PendingAckStore.create(implementation);
            parsed.populate(store, ledgerIds, entryIds);
        }
    }

    /** A thread's round-robin position over the dataset. */
    @State(Scope.Thread)
    public static class CursorState {
        private int index;

        int next(int entries) {
            int current = index;
            int next = current + 1;
            index = next == entries ? 0 : next;
            return current;
        }
    }

    /**
     * Before every call, the whole dataset built anew and the mark set at half the middle ledger:
     * {@code removeAllUpTo(L / 2, entriesInLedger(L / 2) / 2)}.
     */
    @State(Scope.Thread)
    public static class RangeState {
        @Param({"receiverQueue1kEntries1Ledger", "batchedReceiverQueue100Entries1Ledger",
                "defaultUnacked50kEntries1Ledger", "defaultUnacked50kEntries2Ledgers",
                "defaultUnacked50kEntries5Ledgers", "defaultUnacked50kEntries10Ledgers",
                "defaultUnacked50kEntries20Ledgers", "residual1kEntries5Ledgers", "residual1kEntries100Ledgers",
                "64kEntries1kLedgers", "1mEntries16kLedgers"})
        public String dataset;

        @Param({"oldProduction", "production"})
        public String implementation;

        PendingAckStore store;
        long markDeleteLedgerId;
        long markDeleteEntryId;

        @Setup(Level.Invocation)
        public void setup() {
            Dataset parsed = Dataset.named(dataset);
            store = PendingAckStore.create(implementation);
            parsed.populate(store, null, null);
            markDeleteLedgerId = parsed.ledgers / 2L;
            markDeleteEntryId = parsed.entriesInLedger(markDeleteLedgerId) / 2L;
        }
    }

    /**
     * Before every call, one ledger of the dataset's entries built anew, the mark at 2 % of them:
     * {@code smallPrefix} removes the first 2 %, {@code beforePendingWindow} starts the entries
     * after the mark and removes nothing.
     */
    @State(Scope.Thread)
    public static class CleanupState {
        @Param({"receiverQueue1kEntries1Ledger", "defaultUnacked50kEntries1Ledger"})
        public String dataset;

        @Param({"oldProduction", "production"})
        public String implementation;

        @Param({"beforePendingWindow", "smallPrefix"})
        public String scenario;

        PendingAckStore store;
        long markDeleteLedgerId;
        long markDeleteEntryId;

        @Setup(Level.Invocation)
        public void setup() {
            Dataset parsed = Dataset.named(dataset);
            int prefix = Math.max(1, parsed.entries / 50);
            store = PendingAckStore.create(implementation);
            markDeleteLedgerId = 0;
            markDeleteEntryId = prefix - 1L;
            long first;
            switch (scenario) {
                case "beforePendingWindow":
                    first = prefix;
                    break;
                case "smallPrefix":
                    first = 0;
                    break;
                default:
                    throw new IllegalArgumentException("unknown cleanup scenario `" + scenario + "`");
            }
            for (int i = 0; i < parsed.entries; i++) {
                store.addPendingAckIfAllowed(0, first + i, Dataset.remaining(i), Dataset.stickyKeyHash(i));
            }
        }
    }

    /**
     * A consumer's window of {@code entries} pending entries, kept full: each call acks the oldest
     * slot and dispatches the next sequence number into it, sequence s at
     * {@code (s / perLedger, s % perLedger)} with {@code perLedger = ceil(entries / ledgers)}, so
     * ledgers roll over as a live consumer's do. Every 16th call of the partial-ack cycle also acks
     * one batch index of the slot half a window ahead, while it has more than one left.
     */
    @State(Scope.Thread)
    public static class RollingWindowState {
        private static final int PARTIAL_ACK_INTERVAL = 16;

        @Param({"receiverQueue1kEntries1Ledger", "batchedReceiverQueue100Entries1Ledger",
                "defaultUnacked50kEntries1Ledger", "defaultUnacked50kEntries2Ledgers",
                "defaultUnacked50kEntries5Ledgers", "defaultUnacked50kEntries10Ledgers",
                "defaultUnacked50kEntries20Ledgers"})
        public String dataset;

        @Param({"oldProduction", "production"})
        public String implementation;

        PendingAckStore store;
        long[] ledgerIds;
        long[] entryIds;
        int[] remainingUnacked;
        int entries;
        long entriesPerLedger;
        int cursor;
        long nextSequence;
        long operations;

        @Setup(Level.Trial)
        public void setup() {
            Dataset parsed = Dataset.named(dataset);
            entries = parsed.entries;
            entriesPerLedger = Math.max(1, (entries + parsed.ledgers - 1L) / parsed.ledgers);
            ledgerIds = new long[entries];
            entryIds = new long[entries];
            remainingUnacked = new int[entries];
            store = PendingAckStore.create(implementation);
            for (int i = 0; i < entries; i++) {
                setSlot(i, i);
                store.addPendingAckIfAllowed(ledgerIds[i], entryIds[i], remainingUnacked[i], Dataset.stickyKeyHash(i));
            }
            nextSequence = entries;
        }

        long dispatchAndAck() {
            int slot = cursor;
            cursor = slot + 1 == entries ? 0 : slot + 1;
            int removed = store.removeAndGetRemainingUnacked(ledgerIds[slot], entryIds[slot]);
            long sequence = nextSequence++;
            setSlot(slot, sequence);
            store.addPendingAckIfAllowed(ledgerIds[slot], entryIds[slot], remainingUnacked[slot],
                    Dataset.stickyKeyHash(sequence));
            return removed + remainingUnacked[slot];
        }

        boolean partialAckDue() {
            return (operations++ & (PARTIAL_ACK_INTERVAL - 1)) == 0;
        }

        long partialAck() {
            int slot = cursor + entries / 2;
            if (slot >= entries) {
                slot -= entries;
            }
            int remaining = remainingUnacked[slot];
            if (remaining <= 1 || !store.updateRemainingUnacked(ledgerIds[slot], entryIds[slot], 1)) {
                return 0;
            }
            remainingUnacked[slot] = remaining - 1;
            return remaining;
        }

        private void setSlot(int slot, long sequence) {
            ledgerIds[slot] = sequence / entriesPerLedger;
            entryIds[slot] = sequence % entriesPerLedger;
            remainingUnacked[slot] = Dataset.remaining(sequence);
        }
    }
}

package pendingack;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Draft #26024's {@code PendingAcksMap} (apache/pulsar
 * {@code pulsar-broker/src/main/java/org/apache/pulsar/broker/service/PendingAcksMap.java} at
 * revision 706d2ab157c6), written here for the operations its benchmark calls: ledgers in a
 * {@code TreeMap<Long, LedgerPendingAcks>} under one read-write lock, each ledger's entries in a
 * primitive map with a bitset of entry ids for prefix cleanup, values packed as
 * {@code remaining << 32 | hash} with {@code Long.MIN_VALUE} for "not found". Its
 * {@code removeAllUpTo} probes under the read lock and starts again under the write lock when
 * there is something to remove.
 */
final class DraftPendingAcksMap {
    /** Key_Shared's add hook ({@code PendingAcksAddHandler}); the benchmark passes none. */
    interface AddHandler {
        boolean handleAdding(Object consumer, long ledgerId, long entryId, int stickyKeyHash);
    }

    /** Key_Shared's remove hook ({@code PendingAcksRemoveHandler}); the benchmark passes none. */
    interface RemoveHandler {
        void handleRemoving(Object consumer, long ledgerId, long entryId, int stickyKeyHash, boolean closing);

        void startBatch();

        void endBatch();
    }

    @FunctionalInterface
    interface PendingAcksConsumer {
        void accept(long ledgerId, long entryId, int remainingUnacked, int stickyKeyHash);
    }

    static final long PACKED_NOT_FOUND = Long.MIN_VALUE;

    private final Object consumer = null;
    private final TreeMap<Long, LedgerPendingAcks> pendingAcks = new TreeMap<>();
    private final Supplier<AddHandler> addHandlerSupplier;
    private final Supplier<RemoveHandler> removeHandlerSupplier;
    private final Lock readLock;
    private final Lock writeLock;
    private boolean closed = false;

    DraftPendingAcksMap(Supplier<AddHandler> addHandlerSupplier, Supplier<RemoveHandler> removeHandlerSupplier) {
        this.addHandlerSupplier = addHandlerSupplier;
        this.removeHandlerSupplier = removeHandlerSupplier;
        ReadWriteLock readWriteLock = new ReentrantReadWriteLock();
        writeLock = readWriteLock.writeLock();
        readLock = readWriteLock.readLock();
    }

    static long pack(int remainingUnacked, int stickyKeyHash) {
        return ((long) remainingUnacked << Integer.SIZE) | (stickyKeyHash & 0xFFFF_FFFFL);
    }

    static int remaining(long packed) {
        return (int) (packed >> Integer.SIZE);
    }

    static int hash(long packed) {
        return (int) packed;
    }

    boolean addPendingAckIfAllowed(long ledgerId, long entryId, int remainingUnacked, int stickyKeyHash) {
        writeLock.lock();
        try {
            if (closed) {
                return false;
            }
            AddHandler handler = addHandlerSupplier.get();
            if (handler != null && !handler.handleAdding(consumer, ledgerId, entryId, stickyKeyHash)) {
                return false;
            }
            pendingAcks.computeIfAbsent(ledgerId, k -> new LedgerPendingAcks())
                    .put(entryId, pack(remainingUnacked, stickyKeyHash));
            return true;
        } finally {
            writeLock.unlock();
        }
    }

    boolean contains(long ledgerId, long entryId) {
        readLock.lock();
        try {
            LedgerPendingAcks ledger = pendingAcks.get(ledgerId);
            return ledger != null && ledger.containsKey(entryId);
        } finally {
            readLock.unlock();
        }
    }

    int getRemainingUnacked(long ledgerId, long entryId) {
        readLock.lock();
        try {
            LedgerPendingAcks ledger = pendingAcks.get(ledgerId);
            if (ledger == null) {
                return PendingAckStore.NOT_FOUND;
            }
            long packed = ledger.getOrDefault(entryId, PACKED_NOT_FOUND);
            return packed == PACKED_NOT_FOUND ? PendingAckStore.NOT_FOUND : remaining(packed);
        } finally {
            readLock.unlock();
        }
    }

    /** The draft's update: no guard on the new count (the merged #26030 added one). */
    boolean updateRemainingUnacked(long ledgerId, long entryId, int ackedDelta) {
        writeLock.lock();
        try {
            LedgerPendingAcks ledger = pendingAcks.get(ledgerId);
            if (ledger == null) {
                return false;
            }
            long packed = ledger.getOrDefault(entryId, PACKED_NOT_FOUND);
            if (packed == PACKED_NOT_FOUND) {
                return false;
            }
            ledger.put(entryId, pack(remaining(packed) - ackedDelta, hash(packed)));
            return true;
        } finally {
            writeLock.unlock();
        }
    }

    int removeAndGetRemainingUnacked(long ledgerId, long entryId) {
        writeLock.lock();
        try {
            LedgerPendingAcks ledger = pendingAcks.get(ledgerId);
            if (ledger == null) {
                return PendingAckStore.NOT_FOUND;
            }
            long packed = ledger.getOrDefault(entryId, PACKED_NOT_FOUND);
            if (packed == PACKED_NOT_FOUND) {
                return PendingAckStore.NOT_FOUND;
            }
            ledger.removePresent(entryId);
            handleRemoved(ledgerId, entryId, hash(packed));
            if (ledger.isEmpty()) {
                pendingAcks.remove(ledgerId);
            }
            return remaining(packed);
        } finally {
            writeLock.unlock();
        }
    }

    void forEach(PendingAcksConsumer processor) {
        readLock.lock();
        try {
            for (Map.Entry<Long, LedgerPendingAcks> entry : pendingAcks.entrySet()) {
                long ledgerId = entry.getKey();
                entry.getValue().forEach((entryId, packed) ->
                        processor.accept(ledgerId, entryId, remaining(packed), hash(packed)));
            }
        } finally {
            readLock.unlock();
        }
    }

    void removeAllUpTo(long markDeleteLedgerId, long markDeleteEntryId, PendingAcksConsumer removed) {
        removeAllUpTo(markDeleteLedgerId, markDeleteEntryId, false, removed);
    }

    /**
     * Under the read lock, stops at the first ledger with something to remove and starts again
     * under the write lock, which a {@code ReentrantReadWriteLock} cannot be upgraded to.
     */
    private void removeAllUpTo(long markDeleteLedgerId, long markDeleteEntryId, boolean useWriteLock,
                               PendingAcksConsumer removed) {
        RemoveHandler handler = removeHandlerSupplier.get();
        boolean acquiredWriteLock = false;
        boolean batchStarted = false;
        boolean retryWithWriteLock = false;
        try {
            if (useWriteLock) {
                writeLock.lock();
                acquiredWriteLock = true;
            } else {
                readLock.lock();
            }
            Iterator<Map.Entry<Long, LedgerPendingAcks>> ledgers =
                    pendingAcks.headMap(markDeleteLedgerId, true).entrySet().iterator();
            while (ledgers.hasNext()) {
                Map.Entry<Long, LedgerPendingAcks> entry = ledgers.next();
                long ledgerId = entry.getKey();
                LedgerPendingAcks ledger = entry.getValue();
                if (!acquiredWriteLock) {
                    if ((ledgerId < markDeleteLedgerId && !ledger.isEmpty())
                            || (ledgerId == markDeleteLedgerId && ledger.hasEntryUpTo(markDeleteEntryId))) {
                        retryWithWriteLock = true;
                        return;
                    }
                    continue;
                }
                MutableBoolean started = new MutableBoolean(batchStarted);
                if (ledgerId < markDeleteLedgerId) {
                    ledger.forEach((entryId, packed) ->
                            handleRemovedEntry(ledgerId, entryId, packed, handler, started, removed));
                    batchStarted = started.value;
                    ledgers.remove();
                } else {
                    int count = ledger.removeUpTo(markDeleteEntryId, (entryId, packed) ->
                            handleRemovedEntry(ledgerId, entryId, packed, handler, started, removed));
                    batchStarted = started.value;
                    if (count > 0 && ledger.isEmpty()) {
                        ledgers.remove();
                    }
                }
            }
        } finally {
            if (batchStarted) {
                handler.endBatch();
            }
            if (acquiredWriteLock) {
                writeLock.unlock();
            } else {
                readLock.unlock();
                if (retryWithWriteLock) {
                    removeAllUpTo(markDeleteLedgerId, markDeleteEntryId, true, removed);
                }
            }
        }
    }

    private void handleRemoved(long ledgerId, long entryId, int stickyKeyHash) {
        RemoveHandler handler = removeHandlerSupplier.get();
        if (handler != null) {
            handler.handleRemoving(consumer, ledgerId, entryId, stickyKeyHash, closed);
        }
    }

    private void handleRemovedEntry(long ledgerId, long entryId, long packed, RemoveHandler handler,
                                    MutableBoolean batchStarted, PendingAcksConsumer removed) {
        int stickyKeyHash = hash(packed);
        if (handler != null) {
            if (!batchStarted.value) {
                handler.startBatch();
                batchStarted.value = true;
            }
            handler.handleRemoving(consumer, ledgerId, entryId, stickyKeyHash, closed);
        }
        if (removed != null) {
            removed.accept(ledgerId, entryId, remaining(packed), stickyKeyHash);
        }
    }

    /** commons-lang3's {@code MutableBoolean}, as the draft shares "batch started" with its lambdas. */
    private static final class MutableBoolean {
        boolean value;

        MutableBoolean(boolean value) {
            this.value = value;
        }
    }
}

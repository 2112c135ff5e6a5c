package pendingack;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@code oldProduction} ({@code jvm-nested-treemap}): {@code TreeMap<Long, TreeMap<Long, IntIntPair>>}
 * under one read-write lock, as the draft #26024 benchmark re-creates the map before the draft.
 * Its {@code removeAllUpTo} walks {@code headMap} iterators under the write lock and removes as it
 * goes: no copy of the prefix.
 */
final class OldProductionStore implements PendingAckStore {
    private final TreeMap<Long, TreeMap<Long, IntIntPair>> pendingAcks = new TreeMap<>();
    private final Lock readLock;
    private final Lock writeLock;

    OldProductionStore() {
        ReadWriteLock readWriteLock = new ReentrantReadWriteLock();
        writeLock = readWriteLock.writeLock();
        readLock = readWriteLock.readLock();
    }

    @Override
    public Object map() {
        return this;
    }

    @Override
    public boolean addPendingAckIfAllowed(long ledgerId, long entryId, int remainingUnacked, int stickyKeyHash) {
        writeLock.lock();
        try {
            pendingAcks.computeIfAbsent(ledgerId, k -> new TreeMap<>())
                    .put(entryId, IntIntPair.of(remainingUnacked, stickyKeyHash));
            return true;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public boolean contains(long ledgerId, long entryId) {
        readLock.lock();
        try {
            TreeMap<Long, IntIntPair> ledger = pendingAcks.get(ledgerId);
            return ledger != null && ledger.containsKey(entryId);
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public int getRemainingUnacked(long ledgerId, long entryId) {
        readLock.lock();
        try {
            TreeMap<Long, IntIntPair> ledger = pendingAcks.get(ledgerId);
            IntIntPair value = ledger == null ? null : ledger.get(entryId);
            return value == null ? NOT_FOUND : value.leftInt();
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public boolean updateRemainingUnacked(long ledgerId, long entryId, int ackedDelta) {
        writeLock.lock();
        try {
            TreeMap<Long, IntIntPair> ledger = pendingAcks.get(ledgerId);
            IntIntPair value = ledger == null ? null : ledger.get(entryId);
            if (value == null) {
                return false;
            }
            ledger.put(entryId, IntIntPair.of(value.leftInt() - ackedDelta, value.rightInt()));
            return true;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public int removeAndGetRemainingUnacked(long ledgerId, long entryId) {
        writeLock.lock();
        try {
            TreeMap<Long, IntIntPair> ledger = pendingAcks.get(ledgerId);
            if (ledger == null) {
                return NOT_FOUND;
            }
            IntIntPair value = ledger.remove(entryId);
            if (value == null) {
                return NOT_FOUND;
            }
            if (ledger.isEmpty()) {
                pendingAcks.remove(ledgerId);
            }
            return value.leftInt();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public long removeAllUpTo(long markDeleteLedgerId, long markDeleteEntryId) {
        writeLock.lock();
        try {
            long total = 0;
            Iterator<Map.Entry<Long, TreeMap<Long, IntIntPair>>> ledgers =
                    pendingAcks.headMap(markDeleteLedgerId, true).entrySet().iterator();
            while (ledgers.hasNext()) {
                Map.Entry<Long, TreeMap<Long, IntIntPair>> ledger = ledgers.next();
                if (ledger.getKey() < markDeleteLedgerId) {
                    for (IntIntPair value : ledger.getValue().values()) {
                        total += value.leftInt();
                    }
                    ledgers.remove();
                } else {
                    Iterator<Map.Entry<Long, IntIntPair>> entries =
                            ledger.getValue().headMap(markDeleteEntryId, true).entrySet().iterator();
                    while (entries.hasNext()) {
                        total += entries.next().getValue().leftInt();
                        entries.remove();
                    }
                    if (ledger.getValue().isEmpty()) {
                        ledgers.remove();
                    }
                }
            }
            return total;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public long forEachAll() {
        readLock.lock();
        try {
            long total = 0;
            for (TreeMap<Long, IntIntPair> ledger : pendingAcks.values()) {
                for (IntIntPair value : ledger.values()) {
                    total += value.leftInt() + value.rightInt();
                }
            }
            return total;
        } finally {
            readLock.unlock();
        }
    }
}

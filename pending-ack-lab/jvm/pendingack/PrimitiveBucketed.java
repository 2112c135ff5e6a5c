package pendingack;

import java.util.BitSet;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@code jvm-primitive-bucketed}: draft PR #26024's layout, from its description: ledgers in a
 * {@code TreeMap<Long, LedgerPendingAcks>}, each a primitive {@link Long2LongOpenHashMap} of packed
 * values (absent: {@code Long.MIN_VALUE}) and a {@code BitSet} of present entry ids indexed by the
 * absolute id (disabled for good, for that ledger, by the first id outside {@code [0, 2^20]}), with
 * the highest id seen; one read-write lock and a volatile size. Whole ledgers before the mark are
 * visited in the hash table's order, the mark ledger's prefix through the bitset.
 */
final class PrimitiveBucketed implements PendingAcks {
    static final long SENTINEL = Long.MIN_VALUE;
    /** The draft's cap on bitset-indexed entry ids. */
    static final long MAX_INDEXED = 1L << 20;

    static final class LedgerPendingAcks {
        final Long2LongOpenHashMap entries = new Long2LongOpenHashMap();
        final BitSet present = new BitSet();
        boolean indexed = true;
        long maxEntryId = -1;

        boolean put(long entry, long packed) {
            boolean added = entries.put(entry, packed, SENTINEL) == SENTINEL;
            if (indexed) {
                if (entry >= 0 && entry <= MAX_INDEXED) {
                    present.set((int) entry);
                } else {
                    present.clear();
                    indexed = false;
                }
            }
            maxEntryId = Math.max(maxEntryId, entry);
            return added;
        }

        long remove(long entry) {
            long removed = entries.remove(entry, SENTINEL);
            if (removed != SENTINEL && indexed) {
                present.clear((int) entry);
            }
            return removed;
        }

        boolean hasEntryUpTo(long mark) {
            if (entries.isEmpty() || mark < 0) {
                return false;
            }
            if (mark >= maxEntryId || !indexed) {
                return true;
            }
            int first = present.nextSetBit(0);
            return first >= 0 && first <= mark;
        }

        /** Removes every entry ≤ {@code mark}; how many. */
        int removeUpTo(long ledger, long mark, Visitor removed) {
            int before = entries.size();
            if (mark >= maxEntryId) {
                entries.forEach((entry, packed) -> visit(removed, ledger, entry, packed));
                entries.clear();
                present.clear();
            } else if (indexed && mark <= MAX_INDEXED) {
                for (int i = present.nextSetBit(0); i >= 0 && i <= mark;
                        i = present.nextSetBit(i + 1)) {
                    long packed = entries.getOrDefault(i, SENTINEL);
                    entries.remove(i, SENTINEL);
                    visit(removed, ledger, i, packed);
                }
                present.clear(0, (int) mark + 1);
            } else {
                entries.removeIf(entry -> entry <= mark,
                        (entry, packed) -> visit(removed, ledger, entry, packed));
            }
            return before - entries.size();
        }
    }

    private static void visit(Visitor visitor, long ledger, long entry, long packed) {
        visitor.accept(ledger, entry, PendingAcks.remaining(packed), PendingAcks.hash(packed));
    }

    private final TreeMap<Long, LedgerPendingAcks> ledgers = new TreeMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile long size;

    @Override
    public boolean addOrReplace(long ledger, long entry, int remaining, int stickyKeyHash) {
        lock.writeLock().lock();
        try {
            LedgerPendingAcks bucket = ledgers.computeIfAbsent(ledger, k -> new LedgerPendingAcks());
            boolean added = bucket.put(entry, PendingAcks.pack(remaining, stickyKeyHash));
            if (added) {
                size++;
            }
            return added;
        } finally {
            lock.writeLock().unlock();
        }
    }

    private long find(long ledger, long entry) {
        LedgerPendingAcks bucket = ledgers.get(ledger);
        return bucket == null ? SENTINEL : bucket.entries.getOrDefault(entry, SENTINEL);
    }

    @Override
    public int getRemaining(long ledger, long entry) {
        lock.readLock().lock();
        try {
            long packed = find(ledger, entry);
            return packed == SENTINEL ? -1 : PendingAcks.remaining(packed);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean contains(long ledger, long entry) {
        lock.readLock().lock();
        try {
            return find(ledger, entry) != SENTINEL;
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public long removeAndGet(long ledger, long entry) {
        lock.writeLock().lock();
        try {
            LedgerPendingAcks bucket = ledgers.get(ledger);
            if (bucket == null) {
                return NOT_FOUND;
            }
            long removed = bucket.remove(entry);
            if (removed == SENTINEL) {
                return NOT_FOUND;
            }
            size--;
            if (bucket.entries.isEmpty()) {
                ledgers.remove(ledger);
            }
            return removed;
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public boolean updateRemaining(long ledger, long entry, int acked) {
        lock.writeLock().lock();
        try {
            LedgerPendingAcks bucket = ledgers.get(ledger);
            long packed = bucket == null ? SENTINEL : bucket.entries.getOrDefault(entry, SENTINEL);
            if (packed == SENTINEL) {
                return false;
            }
            long left = PendingAcks.acked(PendingAcks.remaining(packed), acked);
            if (left < 0) {
                return false;
            }
            bucket.entries.put(entry, PendingAcks.pack((int) left, PendingAcks.hash(packed)),
                    SENTINEL);
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public void removeAllUpTo(long markLedger, long markEntry, Visitor removed) {
        lock.readLock().lock();
        try {
            if (!anyUpTo(markLedger, markEntry)) {
                return;
            }
        } finally {
            lock.readLock().unlock();
        }
        lock.writeLock().lock();
        try {
            Iterator<Map.Entry<Long, LedgerPendingAcks>> buckets =
                    ledgers.headMap(markLedger, true).entrySet().iterator();
            while (buckets.hasNext()) {
                Map.Entry<Long, LedgerPendingAcks> bucket = buckets.next();
                long ledger = bucket.getKey();
                LedgerPendingAcks acks = bucket.getValue();
                if (ledger < markLedger) {
                    acks.entries.forEach((entry, packed) -> visit(removed, ledger, entry, packed));
                    size -= acks.entries.size();
                    buckets.remove();
                } else {
                    size -= acks.removeUpTo(ledger, markEntry, removed);
                    if (acks.entries.isEmpty()) {
                        buckets.remove();
                    }
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private boolean anyUpTo(long markLedger, long markEntry) {
        for (Map.Entry<Long, LedgerPendingAcks> bucket
                : ledgers.headMap(markLedger, true).entrySet()) {
            if (bucket.getKey() < markLedger || bucket.getValue().hasEntryUpTo(markEntry)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void forEach(Visitor visitor) {
        lock.readLock().lock();
        try {
            for (Map.Entry<Long, LedgerPendingAcks> bucket : ledgers.entrySet()) {
                long ledger = bucket.getKey();
                bucket.getValue().entries.forEach(
                        (entry, packed) -> visit(visitor, ledger, entry, packed));
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public long size() {
        return size;
    }
}

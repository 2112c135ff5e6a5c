package pendingack;

import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@code jvm-nested-treemap}: the draft PR #26024's {@code oldProduction}, the store it measured
 * its primitive layout against: {@code TreeMap<Long, TreeMap<Long, IntIntPair>>} under one
 * read-write lock, a boxed key, a tree entry and an {@code IntIntPair} per entry, and
 * {@code size()} streaming over the ledgers. A mark ledger's prefix is copied
 * ({@code new TreeMap<>(headMap(…))}) for its callbacks and cut with {@code headMap(…).clear()},
 * the fast path the draft's notes say its primitive map gives up (our reading of the old code:
 * the notes name both the copy and the clear).
 */
final class NestedTreeMap implements PendingAcks {
    record IntIntPair(int left, int right) {}

    private final TreeMap<Long, TreeMap<Long, IntIntPair>> pendingAcks = new TreeMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    @Override
    public boolean addOrReplace(long ledger, long entry, int remaining, int stickyKeyHash) {
        lock.writeLock().lock();
        try {
            TreeMap<Long, IntIntPair> ledgerMap =
                    pendingAcks.computeIfAbsent(ledger, k -> new TreeMap<>());
            return ledgerMap.put(entry, new IntIntPair(remaining, stickyKeyHash)) == null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    private IntIntPair find(long ledger, long entry) {
        TreeMap<Long, IntIntPair> ledgerMap = pendingAcks.get(ledger);
        return ledgerMap == null ? null : ledgerMap.get(entry);
    }

    @Override
    public int getRemaining(long ledger, long entry) {
        lock.readLock().lock();
        try {
            IntIntPair pair = find(ledger, entry);
            return pair == null ? -1 : pair.left();
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean contains(long ledger, long entry) {
        lock.readLock().lock();
        try {
            return find(ledger, entry) != null;
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public long removeAndGet(long ledger, long entry) {
        lock.writeLock().lock();
        try {
            TreeMap<Long, IntIntPair> ledgerMap = pendingAcks.get(ledger);
            if (ledgerMap == null) {
                return NOT_FOUND;
            }
            IntIntPair removed = ledgerMap.remove(entry);
            if (removed == null) {
                return NOT_FOUND;
            }
            if (ledgerMap.isEmpty()) {
                pendingAcks.remove(ledger);
            }
            return PendingAcks.pack(removed.left(), removed.right());
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public boolean updateRemaining(long ledger, long entry, int acked) {
        lock.writeLock().lock();
        try {
            TreeMap<Long, IntIntPair> ledgerMap = pendingAcks.get(ledger);
            IntIntPair pair = ledgerMap == null ? null : ledgerMap.get(entry);
            if (pair == null) {
                return false;
            }
            long left = PendingAcks.acked(pair.left(), acked);
            if (left < 0) {
                return false;
            }
            ledgerMap.put(entry, new IntIntPair((int) left, pair.right()));
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public void removeAllUpTo(long markLedger, long markEntry, Visitor removed) {
        // The common "nothing to remove" case costs a read lock only.
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
            Iterator<Map.Entry<Long, TreeMap<Long, IntIntPair>>> ledgers =
                    pendingAcks.headMap(markLedger, true).entrySet().iterator();
            while (ledgers.hasNext()) {
                Map.Entry<Long, TreeMap<Long, IntIntPair>> ledger = ledgers.next();
                long ledgerId = ledger.getKey();
                TreeMap<Long, IntIntPair> ledgerMap = ledger.getValue();
                if (ledgerId < markLedger) {
                    for (Map.Entry<Long, IntIntPair> e : ledgerMap.entrySet()) {
                        removed.accept(ledgerId, e.getKey(), e.getValue().left(),
                                e.getValue().right());
                    }
                    ledgers.remove();
                } else {
                    SortedMap<Long, IntIntPair> head = ledgerMap.headMap(markEntry, true);
                    TreeMap<Long, IntIntPair> prefix = new TreeMap<>(head);
                    head.clear();
                    for (Map.Entry<Long, IntIntPair> e : prefix.entrySet()) {
                        removed.accept(ledgerId, e.getKey(), e.getValue().left(),
                                e.getValue().right());
                    }
                    if (ledgerMap.isEmpty()) {
                        ledgers.remove();
                    }
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private boolean anyUpTo(long markLedger, long markEntry) {
        for (Map.Entry<Long, TreeMap<Long, IntIntPair>> ledger
                : pendingAcks.headMap(markLedger, true).entrySet()) {
            if (ledger.getKey() < markLedger || ledger.getValue().firstKey() <= markEntry) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void forEach(Visitor visitor) {
        lock.readLock().lock();
        try {
            for (Map.Entry<Long, TreeMap<Long, IntIntPair>> ledger : pendingAcks.entrySet()) {
                for (Map.Entry<Long, IntIntPair> e : ledger.getValue().entrySet()) {
                    visitor.accept(ledger.getKey(), e.getKey(), e.getValue().left(),
                            e.getValue().right());
                }
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public long size() {
        lock.readLock().lock();
        try {
            return pendingAcks.values().stream().mapToLong(TreeMap::size).sum();
        } finally {
            lock.readLock().unlock();
        }
    }
}

package pendingack;

import java.util.BitSet;

/**
 * One ledger's entries in the draft #26024 map: a primitive map, and a bitset of the entry ids
 * present (the absolute id, no base offset) that guides prefix cleanup while every id stays in
 * {@code [0, 2^20]}; the first id outside disables it for good.
 */
final class LedgerPendingAcks {
    private static final int MAX_INDEXED_ENTRY_ID = 1 << 20;

    @FunctionalInterface
    interface RemovedEntryConsumer {
        void accept(long entryId, long packed);
    }

    private final Long2LongOpenHashMap entries = new Long2LongOpenHashMap();
    private final BitSet entryIdIndex = new BitSet();
    private boolean entryIdIndexEnabled = true;
    private long maxEntryId = Long.MIN_VALUE;

    void put(long entryId, long packed) {
        entries.put(entryId, packed);
        maxEntryId = Math.max(maxEntryId, entryId);
        if (!entryIdIndexEnabled) {
            return;
        }
        if (canIndex(entryId)) {
            entryIdIndex.set((int) entryId);
        } else {
            entryIdIndex.clear();
            entryIdIndexEnabled = false;
        }
    }

    long getOrDefault(long entryId, long absent) {
        return entries.getOrDefault(entryId, absent);
    }

    boolean containsKey(long entryId) {
        return entries.containsKey(entryId);
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    void forEach(Long2LongOpenHashMap.EntryConsumer consumer) {
        entries.forEach(consumer);
    }

    void removePresent(long entryId) {
        entries.remove(entryId);
        if (entryIdIndexEnabled && canIndex(entryId)) {
            entryIdIndex.clear((int) entryId);
        }
    }

    boolean hasEntryUpTo(long markDeleteEntryId) {
        if (entries.isEmpty() || markDeleteEntryId < 0) {
            return false;
        }
        if (markDeleteEntryId >= maxEntryId || !entryIdIndexEnabled) {
            return true;
        }
        int first = entryIdIndex.nextSetBit(0);
        return first >= 0 && first <= markDeleteEntryId;
    }

    /**
     * Removes the entries at or before the mark: the whole bucket when the mark is past its
     * highest id, a bitset-guided walk while the index covers the mark, else a full scan.
     */
    int removeUpTo(long markDeleteEntryId, RemovedEntryConsumer removed) {
        if (!hasEntryUpTo(markDeleteEntryId)) {
            return 0;
        }
        if (markDeleteEntryId >= maxEntryId) {
            entries.forEach(removed::accept);
            int count = entries.size();
            entries.clear();
            entryIdIndex.clear();
            return count;
        }
        if (entryIdIndexEnabled && canIndex(markDeleteEntryId)) {
            return removeIndexedPrefix((int) markDeleteEntryId, removed);
        }
        return entries.removeIf((entryId, packed) -> {
            if (entryId > markDeleteEntryId) {
                return false;
            }
            removed.accept(entryId, packed);
            return true;
        });
    }

    private int removeIndexedPrefix(int markDeleteEntryId, RemovedEntryConsumer removed) {
        int count = 0;
        int entryId = entryIdIndex.nextSetBit(0);
        while (entryId >= 0 && entryId <= markDeleteEntryId) {
            long packed = entries.getOrDefault(entryId, DraftPendingAcksMap.PACKED_NOT_FOUND);
            if (packed != DraftPendingAcksMap.PACKED_NOT_FOUND) {
                entries.remove(entryId);
                removed.accept(entryId, packed);
                count++;
            }
            entryId = entryIdIndex.nextSetBit(entryId + 1);
        }
        entryIdIndex.clear(0, markDeleteEntryId + 1);
        return count;
    }

    private static boolean canIndex(long entryId) {
        return entryId >= 0 && entryId <= MAX_INDEXED_ENTRY_ID;
    }
}

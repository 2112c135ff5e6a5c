package pendingack;

import java.util.Arrays;

/**
 * The draft #26024 primitive map (proposed alone as #26028): open addressing with linear probing
 * and a Fibonacci hash ({@code key × 0x9E3779B97F4A7C15}, its halves folded), parallel
 * {@code long[]} keys and values and a {@code boolean[]} of used slots, at least 16 slots, doubled
 * before an insert that finds the size at 0.75 of them, backward-shift deletion, never shrunk
 * ({@code clear()} only resets the used slots); {@code forEach} and {@code removeIf} scan the whole
 * table.
 */
final class Long2LongOpenHashMap {
    private static final float LOAD_FACTOR = 0.75f;
    private static final int MIN_CAPACITY = 16;

    @FunctionalInterface
    interface EntryConsumer {
        void accept(long key, long value);
    }

    @FunctionalInterface
    interface EntryPredicate {
        boolean test(long key, long value);
    }

    private long[] keys;
    private long[] values;
    private boolean[] used;
    private int size;
    private int capacity;
    private int threshold;

    Long2LongOpenHashMap() {
        capacity = MIN_CAPACITY;
        keys = new long[capacity];
        values = new long[capacity];
        used = new boolean[capacity];
        threshold = (int) (capacity * LOAD_FACTOR);
    }

    static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    long put(long key, long value) {
        int idx = indexOf(key);
        if (idx >= 0) {
            long old = values[idx];
            values[idx] = value;
            return old;
        }
        if (size >= threshold) {
            rehash(capacity * 2);
        }
        insertNew(key, value);
        return 0;
    }

    long remove(long key) {
        int idx = indexOf(key);
        if (idx < 0) {
            return 0;
        }
        long old = values[idx];
        removeAt(idx);
        return old;
    }

    long getOrDefault(long key, long defaultValue) {
        int idx = indexOf(key);
        return idx >= 0 ? values[idx] : defaultValue;
    }

    boolean containsKey(long key) {
        return indexOf(key) >= 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void clear() {
        if (size > 0) {
            Arrays.fill(used, false);
            size = 0;
        }
    }

    void forEach(EntryConsumer consumer) {
        for (int i = 0; i < capacity; i++) {
            if (used[i]) {
                consumer.accept(keys[i], values[i]);
            }
        }
    }

    int removeIf(EntryPredicate predicate) {
        int removed = 0;
        for (int i = 0; i < capacity;) {
            if (used[i] && predicate.test(keys[i], values[i])) {
                removeAt(i);
                removed++;
            } else {
                i++;
            }
        }
        return removed;
    }

    private int indexOf(long key) {
        int mask = capacity - 1;
        int idx = hash(key) & mask;
        while (used[idx]) {
            if (keys[idx] == key) {
                return idx;
            }
            idx = (idx + 1) & mask;
        }
        return -1;
    }

    private void insertNew(long key, long value) {
        int mask = capacity - 1;
        int idx = hash(key) & mask;
        while (used[idx]) {
            idx = (idx + 1) & mask;
        }
        keys[idx] = key;
        values[idx] = value;
        used[idx] = true;
        size++;
    }

    /** Frees slot {@code idx}, shifting back each later entry of its run whose home allows it. */
    private void removeAt(int idx) {
        int mask = capacity - 1;
        size--;
        int next = (idx + 1) & mask;
        while (used[next]) {
            int home = hash(keys[next]) & mask;
            if ((next > idx && (home <= idx || home > next)) || (next < idx && home <= idx && home > next)) {
                keys[idx] = keys[next];
                values[idx] = values[next];
                idx = next;
            }
            next = (next + 1) & mask;
        }
        used[idx] = false;
    }

    private void rehash(int newCapacity) {
        long[] oldKeys = keys;
        long[] oldValues = values;
        boolean[] oldUsed = used;
        int oldCapacity = capacity;
        capacity = newCapacity;
        keys = new long[newCapacity];
        values = new long[newCapacity];
        used = new boolean[newCapacity];
        threshold = (int) (newCapacity * LOAD_FACTOR);
        size = 0;
        for (int i = 0; i < oldCapacity; i++) {
            if (oldUsed[i]) {
                insertNew(oldKeys[i], oldValues[i]);
            }
        }
    }
}

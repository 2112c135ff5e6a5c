package pendingack;

import java.util.Arrays;

/**
 * The primitive map of draft PR #26024 (proposed alone as #26028), written here from its
 * description: open addressing with linear probing and a Fibonacci hash, parallel {@code long[]}
 * keys and values and a {@code boolean[]} of used slots, load factor 0.75, at least 16 slots,
 * doubled when the size reaches the threshold, backward-shift deletion, never shrunk
 * ({@code clear()} only resets the used slots); {@code forEach} and {@code removeIf} scan the
 * whole table.
 */
final class Long2LongOpenHashMap {
    interface EntryVisitor {
        void accept(long key, long value);
    }

    interface KeyTest {
        boolean test(long key);
    }

    private static final float LOAD_FACTOR = 0.75f;
    private static final int MIN_CAPACITY = 16;

    private long[] keys;
    private long[] values;
    private boolean[] used;
    private int mask;
    private int size;
    private int threshold;

    Long2LongOpenHashMap() {
        allocate(MIN_CAPACITY);
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        values = new long[capacity];
        used = new boolean[capacity];
        mask = capacity - 1;
        threshold = (int) (capacity * LOAD_FACTOR);
    }

    /** fastutil's {@code HashCommon.mix}: a Fibonacci multiply, its high bits folded down. */
    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        h ^= h >>> 32;
        return (int) (h ^ (h >>> 16));
    }

    private int slot(long key) {
        int at = mix(key) & mask;
        while (used[at] && keys[at] != key) {
            at = (at + 1) & mask;
        }
        return at;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    long getOrDefault(long key, long absent) {
        int at = slot(key);
        return used[at] ? values[at] : absent;
    }

    /** The previous value, or {@code absent}. */
    long put(long key, long value, long absent) {
        int at = slot(key);
        if (used[at]) {
            long previous = values[at];
            values[at] = value;
            return previous;
        }
        used[at] = true;
        keys[at] = key;
        values[at] = value;
        if (++size >= threshold) {
            rehash(keys.length * 2);
        }
        return absent;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        long[] oldValues = values;
        boolean[] oldUsed = used;
        allocate(capacity);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) {
                int at = slot(oldKeys[i]);
                used[at] = true;
                keys[at] = oldKeys[i];
                values[at] = oldValues[i];
            }
        }
    }

    /** The removed value, or {@code absent}. */
    long remove(long key, long absent) {
        int at = slot(key);
        if (!used[at]) {
            return absent;
        }
        long removed = values[at];
        removeAt(at);
        return removed;
    }

    /** Frees slot {@code at} and shifts back the entries of its probe run that can move. */
    private void removeAt(int at) {
        size--;
        int free = at;
        int next = (free + 1) & mask;
        while (used[next]) {
            int home = mix(keys[next]) & mask;
            // The entry at `next` may fill `free` unless its home lies cyclically in (free, next].
            boolean stays = free <= next ? free < home && home <= next : free < home || home <= next;
            if (!stays) {
                keys[free] = keys[next];
                values[free] = values[next];
                free = next;
            }
            next = (next + 1) & mask;
        }
        used[free] = false;
    }

    void forEach(EntryVisitor visitor) {
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                visitor.accept(keys[i], values[i]);
            }
        }
    }

    /**
     * Removes every entry whose key passes {@code test}, visiting each: one scan, re-reading a
     * slot after a removal shifted another entry into it.
     */
    void removeIf(KeyTest test, EntryVisitor removed) {
        int i = 0;
        while (i < keys.length) {
            if (used[i] && test.test(keys[i])) {
                removed.accept(keys[i], values[i]);
                removeAt(i);
            } else {
                i++;
            }
        }
    }

    void clear() {
        Arrays.fill(used, false);
        size = 0;
    }
}

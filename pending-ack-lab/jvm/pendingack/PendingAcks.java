package pendingack;

/**
 * A consumer's pending acks keyed by (ledgerId, entryId), with Pulsar's {@code PendingAcksMap}
 * operations as the draft PR #26024's benchmark calls them: the Rust side's `PendingAcks`.
 */
interface PendingAcks {
    /** What {@link #removeAndGet} returns for an absent entry. */
    long NOT_FOUND = Long.MIN_VALUE;

    /** Called for every entry a visit or a cleanup passes (Pulsar's {@code PendingAcksConsumer}). */
    interface Visitor {
        void accept(long ledger, long entry, int remaining, int stickyKeyHash);
    }

    /** Puts the entry, replacing any value there; whether the key was new. */
    boolean addOrReplace(long ledger, long entry, int remaining, int stickyKeyHash);

    /** The remaining count, or -1 when absent. */
    int getRemaining(long ledger, long entry);

    boolean contains(long ledger, long entry);

    /** Removes the entry; its value packed ({@link #pack}), or {@link #NOT_FOUND}. */
    long removeAndGet(long ledger, long entry);

    /**
     * Subtracts {@code acked} from the remaining count, keeping the hash; false, changing nothing,
     * when the entry is absent or the count would leave {@code 0..Integer.MAX_VALUE}.
     */
    boolean updateRemaining(long ledger, long entry, int acked);

    /**
     * Removes every entry at or before (markLedger, markEntry), {@code markEntry} -1 meaning none
     * of {@code markLedger}'s, visiting each removed entry.
     */
    void removeAllUpTo(long markLedger, long markEntry, Visitor removed);

    /** Visits every entry. */
    void forEach(Visitor visitor);

    long size();

    /** Pulsar's packing: remaining in the high word, the hash in the low one. */
    static long pack(int remaining, int stickyKeyHash) {
        return ((long) remaining << 32) | (stickyKeyHash & 0xFFFF_FFFFL);
    }

    static int remaining(long packed) {
        return (int) (packed >> 32);
    }

    static int hash(long packed) {
        return (int) packed;
    }

    /** The count after {@code acked} more acks, or -1 when it would leave the int range. */
    static long acked(int remaining, int acked) {
        long left = (long) remaining - acked;
        return left < 0 || left > Integer.MAX_VALUE ? -1 : left;
    }
}

package pendingack;

/**
 * The operations the draft #26024 benchmark calls on each implementation
 * ({@code PendingAcksMapBenchmark.PendingAckStore}): the old nested {@code TreeMap}s
 * ({@link OldProductionStore}) and the draft's map ({@link ProductionStore}).
 */
interface PendingAckStore {
    int NOT_FOUND = -1;

    boolean addPendingAckIfAllowed(long ledgerId, long entryId, int remainingUnacked, int stickyKeyHash);

    boolean contains(long ledgerId, long entryId);

    int getRemainingUnacked(long ledgerId, long entryId);

    boolean updateRemainingUnacked(long ledgerId, long entryId, int ackedDelta);

    int removeAndGetRemainingUnacked(long ledgerId, long entryId);

    /** Removes every entry at or before the mark; the sum of their remaining counts. */
    long removeAllUpTo(long markDeleteLedgerId, long markDeleteEntryId);

    /** The sum of every entry's remaining count and hash, in order. */
    long forEachAll();

    /** What JOL weighs: the pending-ack map itself, as a consumer holds it. */
    Object map();

    static PendingAckStore create(String implementation) {
        switch (implementation) {
            case "oldProduction":
                return new OldProductionStore();
            case "production":
                return new ProductionStore();
            default:
                throw new IllegalArgumentException("unknown implementation `" + implementation
                        + "`; valid: oldProduction, production");
        }
    }
}

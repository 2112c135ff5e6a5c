package pendingack;

/**
 * {@code production} ({@code jvm-primitive-bucketed}): the draft #26024 map, called as the draft's
 * benchmark calls it: through a store that sums what its visits pass in a field.
 */
final class ProductionStore implements PendingAckStore {
    private final DraftPendingAcksMap pendingAcks = new DraftPendingAcksMap(() -> null, () -> null);
    private long total;
    private final DraftPendingAcksMap.PendingAcksConsumer sumAll =
            (ledgerId, entryId, remainingUnacked, stickyKeyHash) -> total += remainingUnacked + stickyKeyHash;
    private final DraftPendingAcksMap.PendingAcksConsumer sumRemaining =
            (ledgerId, entryId, remainingUnacked, stickyKeyHash) -> total += remainingUnacked;

    @Override
    public Object map() {
        return pendingAcks;
    }

    @Override
    public boolean addPendingAckIfAllowed(long ledgerId, long entryId, int remainingUnacked, int stickyKeyHash) {
        return pendingAcks.addPendingAckIfAllowed(ledgerId, entryId, remainingUnacked, stickyKeyHash);
    }

    @Override
    public boolean contains(long ledgerId, long entryId) {
        return pendingAcks.contains(ledgerId, entryId);
    }

    @Override
    public int getRemainingUnacked(long ledgerId, long entryId) {
        return pendingAcks.getRemainingUnacked(ledgerId, entryId);
    }

    @Override
    public boolean updateRemainingUnacked(long ledgerId, long entryId, int ackedDelta) {
        return pendingAcks.updateRemainingUnacked(ledgerId, entryId, ackedDelta);
    }

    @Override
    public int removeAndGetRemainingUnacked(long ledgerId, long entryId) {
        return pendingAcks.removeAndGetRemainingUnacked(ledgerId, entryId);
    }

    @Override
    public long removeAllUpTo(long markDeleteLedgerId, long markDeleteEntryId) {
        total = 0;
        pendingAcks.removeAllUpTo(markDeleteLedgerId, markDeleteEntryId, sumRemaining);
        return total;
    }

    @Override
    public long forEachAll() {
        total = 0;
        pendingAcks.forEach(sumAll);
        return total;
    }
}

package pendingack;

import org.openjdk.jol.info.GraphLayout;

/**
 * The heap a pending-ack map holds, weighed with JOL as the write-up weighed it
 * ({@code GraphLayout.parseInstance(map).totalSize()}: every object the map reaches): the whole
 * dataset, or, given {@code keep}, what remains after {@code removeAllUpTo} cleaned that peak
 * down to the newest {@code keep} entries of its last ledger.
 *
 * <p>Usage: {@code pendingack.Footprint <oldProduction|production> <entries> <ledgers> [<keep>]};
 * prints {@code retained=<bytes>}.
 */
public final class Footprint {
    private Footprint() {}

    public static void main(String[] args) {
        if (args.length != 3 && args.length != 4) {
            throw new IllegalArgumentException(
                    "usage: pendingack.Footprint <oldProduction|production> <entries> <ledgers> [<keep>]");
        }
        PendingAckStore store = PendingAckStore.create(args[0]);
        int entries = Integer.parseInt(args[1]);
        int ledgers = Integer.parseInt(args[2]);
        Dataset.populate(store, entries, ledgers, null, null);
        if (args.length == 4) {
            long keep = Long.parseLong(args[3]);
            long last = ledgers - 1L;
            long inLast = entries / ledgers + (last < entries % ledgers ? 1 : 0);
            // -1: none of the last ledger's entries, only the ledgers before it.
            store.removeAllUpTo(last, Math.max(-1, inLast - keep - 1));
        }
        System.out.println("retained=" + GraphLayout.parseInstance(store.map()).totalSize());
    }
}

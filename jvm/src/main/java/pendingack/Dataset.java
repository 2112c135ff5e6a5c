package pendingack;

/**
 * The draft #26024 benchmark's datasets, under its names: {@code entries} pending entries over
 * ledgers {@code 0..ledgers-1}, split evenly with the remainder going to the first ledgers, entry
 * ids contiguous from 0 in each ledger ("Managed ledger entries are appended sequentially inside
 * one ledger before rollover"), inserted ledger by ledger.
 */
enum Dataset {
    RECEIVER_QUEUE_1K_ENTRIES_1_LEDGER("receiverQueue1kEntries1Ledger", 1_000, 1),
    BATCHED_RECEIVER_QUEUE_100_ENTRIES_1_LEDGER("batchedReceiverQueue100Entries1Ledger", 100, 1),
    DEFAULT_UNACKED_50K_ENTRIES_1_LEDGER("defaultUnacked50kEntries1Ledger", 50_000, 1),
    DEFAULT_UNACKED_50K_ENTRIES_2_LEDGERS("defaultUnacked50kEntries2Ledgers", 50_000, 2),
    DEFAULT_UNACKED_50K_ENTRIES_5_LEDGERS("defaultUnacked50kEntries5Ledgers", 50_000, 5),
    DEFAULT_UNACKED_50K_ENTRIES_10_LEDGERS("defaultUnacked50kEntries10Ledgers", 50_000, 10),
    DEFAULT_UNACKED_50K_ENTRIES_20_LEDGERS("defaultUnacked50kEntries20Ledgers", 50_000, 20),
    RESIDUAL_1K_ENTRIES_5_LEDGERS("residual1kEntries5Ledgers", 1_000, 5),
    RESIDUAL_1K_ENTRIES_100_LEDGERS("residual1kEntries100Ledgers", 1_000, 100),
    ENTRIES_64K_LEDGERS_1K("64kEntries1kLedgers", 65_536, 1_024),
    ENTRIES_1M_LEDGERS_16K("1mEntries16kLedgers", 1_048_576, 16_384);

    final String name;
    final int entries;
    final int ledgers;

    Dataset(String name, int entries, int ledgers) {
        this.name = name;
        this.entries = entries;
        this.ledgers = ledgers;
    }

    static Dataset named(String name) {
        for (Dataset dataset : values()) {
            if (dataset.name.equals(name)) {
                return dataset;
            }
        }
        throw new IllegalArgumentException("unknown dataset `" + name + "`");
    }

    int entriesInLedger(long ledgerId) {
        return entries / ledgers + (ledgerId < entries % ledgers ? 1 : 0);
    }

    /** The benchmark's value of the i-th entry: remaining {@code (i & 15) + 1}. */
    static int remaining(long index) {
        return (int) (index & 15) + 1;
    }

    /** The benchmark's value of the i-th entry: sticky key hash {@code i × 31}. */
    static int stickyKeyHash(long index) {
        return (int) (index * 31);
    }

    /** Adds {@code entries} entries over {@code ledgers} ledgers; fills the positions when given. */
    static void populate(PendingAckStore store, int entries, int ledgers, long[] ledgerIds, long[] entryIds) {
        int index = 0;
        for (long ledgerId = 0; ledgerId < ledgers; ledgerId++) {
            int inLedger = entries / ledgers + (ledgerId < entries % ledgers ? 1 : 0);
            for (long entryId = 0; entryId < inLedger; entryId++) {
                if (ledgerIds != null) {
                    ledgerIds[index] = ledgerId;
                    entryIds[index] = entryId;
                }
                store.addPendingAckIfAllowed(ledgerId, entryId, remaining(index), stickyKeyHash(index));
                index++;
            }
        }
    }

    void populate(PendingAckStore store, long[] ledgerIds, long[] entryIds) {
        populate(store, entries, ledgers, ledgerIds, entryIds);
    }
}

package pendingack;

/**
 * {@code entries} pending entries over ledgers {@code 0..ledgers}, entry ids contiguous from 0 in
 * each, the remainder going to the first ledgers: the Rust side's `workload::Dataset`, named as
 * it is ({@code 50k-in-20}, {@code 1m-in-16k}).
 */
final class Dataset {
    final long entries;
    final long ledgers;

    Dataset(long entries, long ledgers) {
        this.entries = entries;
        this.ledgers = ledgers;
    }

    /** The Rust side's datasets, by name (its `workload::DATASETS`; the trace test compares them). */
    private static final Object[][] DATASETS = {
        {"100-in-1", 100L, 1L},
        {"1k-in-1", 1_000L, 1L},
        {"25k-in-1", 25_000L, 1L},
        {"50k-in-1", 50_000L, 1L},
        {"50k-in-2", 50_000L, 2L},
        {"50k-in-5", 50_000L, 5L},
        {"50k-in-10", 50_000L, 10L},
        {"50k-in-20", 50_000L, 20L},
        {"1k-in-5", 1_000L, 5L},
        {"1k-in-100", 1_000L, 100L},
        {"1k-in-500", 1_000L, 500L},
        {"1k-in-1000", 1_000L, 1_000L},
        {"200k-in-100", 200_000L, 100L},
        {"200k-in-500", 200_000L, 500L},
        {"64k-in-1k", 65_536L, 1_024L},
        {"1m-in-16k", 1_048_576L, 16_384L},
    };

    static Dataset named(String name) {
        for (Object[] d : DATASETS) {
            if (d[0].equals(name)) {
                return new Dataset((Long) d[1], (Long) d[2]);
            }
        }
        throw new IllegalArgumentException("unknown dataset `" + name + "`");
    }

    long entriesInLedger(long ledger) {
        return entries / ledgers + (ledger < entries % ledgers ? 1 : 0);
    }

    /** The write-up's value of the i-th entry: remaining {@code (i & 15) + 1}, hash {@code i × 31}. */
    static int remaining(long i) {
        return (int) (i & 15) + 1;
    }

    static int hash(long i) {
        return (int) i * 31;
    }

    /** Every entry in ledger-major order, with the write-up's values. */
    void populate(PendingAcks map) {
        long i = 0;
        for (long ledger = 0; ledger < ledgers; ledger++) {
            long inLedger = entriesInLedger(ledger);
            for (long entry = 0; entry < inLedger; entry++, i++) {
                map.addOrReplace(ledger, entry, remaining(i), hash(i));
            }
        }
    }
}

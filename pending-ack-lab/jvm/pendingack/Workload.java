package pendingack;

/**
 * A map prepared for one experiment on one dataset and what drives its operations: the Rust
 * side's `workload::Workload` with its drivers, operation for operation (the write-up's
 * {@code RollingWindowState}, {@code CursorState}, cleanups and scans).
 */
final class Workload {
    private enum Driver { CYCLE, PARTIAL_CYCLE, SHUFFLED_CYCLE, CURSOR, SCAN, CLEANUP }

    final PendingAcks map;
    private final String experiment;
    private final Driver driver;
    private final Dataset dataset;
    // the rolling window
    private long window;
    private long perLedger;
    private long multiplier;
    private long ops;
    // the cursor
    private long index;
    private long ledger;
    private long entry;
    private long ledgerLength;
    private long pass;
    // the cleanup
    private long markLedger;
    private long markEntry;
    /** All entries in ledger 0 from this id on (the same-ledger cases), or -1: the dataset's. */
    private long sameLedgerFrom = -1;

    Workload(String experiment, Dataset dataset, PendingAcks map) {
        this.experiment = experiment;
        this.dataset = dataset;
        this.map = map;
        switch (experiment) {
            case "dispatch-and-ack-cycle":
                driver = Driver.CYCLE;
                startWindow();
                break;
            case "dispatch-ack-and-partial-ack-cycle":
                driver = Driver.PARTIAL_CYCLE;
                startWindow();
                break;
            case "shuffled-ack-cycle":
                driver = Driver.SHUFFLED_CYCLE;
                startWindow();
                break;
            case "remove-all-up-to":
            case "same-ledger-small-prefix":
            case "same-ledger-before-window":
                driver = Driver.CLEANUP;
                startCleanup();
                break;
            case "for-each-scan":
                driver = Driver.SCAN;
                dataset.populate(map);
                break;
            case "add-or-replace":
            case "remove-and-add":
            case "update-remaining":
            case "contains-hit":
            case "get-remaining-hit":
                driver = Driver.CURSOR;
                dataset.populate(map);
                ledgerLength = dataset.entriesInLedger(0);
                break;
            default:
                throw new IllegalArgumentException("no such experiment `" + experiment + "`");
        }
    }

    boolean isOneShot() {
        return driver == Driver.CLEANUP;
    }

    /** Operations a steady run must do first (cycles: three windows; others: one pass). */
    long warmUpOps() {
        switch (driver) {
            case CYCLE:
            case PARTIAL_CYCLE:
            case SHUFFLED_CYCLE:
                return 3 * dataset.entries;
            case CURSOR:
                return dataset.entries;
            default:
                return 0;
        }
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private void startWindow() {
        window = dataset.entries;
        multiplier = 4051;
        while (gcd(multiplier, window) != 1) {
            multiplier += 2;
        }
        perLedger = (window + dataset.ledgers - 1) / dataset.ledgers;
        for (long s = 0; s < window; s++) {
            map.addOrReplace(s / perLedger, s % perLedger, Dataset.remaining(s), Dataset.hash(s));
        }
    }

    private void startCleanup() {
        long prefix = Math.max(dataset.entries / 50, 1);
        if (experiment.equals("remove-all-up-to")) {
            markLedger = dataset.ledgers / 2;
            markEntry = dataset.entriesInLedger(markLedger) / 2;
        } else {
            markLedger = 0;
            markEntry = prefix - 1;
            sameLedgerFrom = experiment.equals("same-ledger-small-prefix") ? 0 : prefix;
        }
        populateCleanup(false);
    }

    private boolean covered(long l, long e) {
        return l < markLedger || (l == markLedger && markEntry >= 0 && e <= markEntry);
    }

    /** The cleanup's population in dispatch order; with {@code coveredOnly}, up to the mark. */
    private void populateCleanup(boolean coveredOnly) {
        if (sameLedgerFrom >= 0) {
            for (long i = 0; i < dataset.entries; i++) {
                if (coveredOnly && !covered(0, sameLedgerFrom + i)) {
                    return;
                }
                map.addOrReplace(0, sameLedgerFrom + i, Dataset.remaining(i), Dataset.hash(i));
            }
            return;
        }
        long i = 0;
        for (long l = 0; l < dataset.ledgers; l++) {
            long inLedger = dataset.entriesInLedger(l);
            for (long e = 0; e < inLedger; e++, i++) {
                if (coveredOnly && !covered(l, e)) {
                    return;
                }
                map.addOrReplace(l, e, Dataset.remaining(i), Dataset.hash(i));
            }
        }
    }

    /** After a cleanup, puts back what it removed (in dispatch order); nothing for the others. */
    void restore() {
        if (driver == Driver.CLEANUP) {
            populateCleanup(true);
        }
    }

    /** Runs {@code n} operations; a checksum of what they read. */
    long run(long n) {
        long sum = 0;
        switch (driver) {
            case CYCLE:
            case PARTIAL_CYCLE:
            case SHUFFLED_CYCLE:
                for (long i = 0; i < n; i++) {
                    sum += cycleStep();
                }
                return sum;
            case CURSOR:
                for (long i = 0; i < n; i++) {
                    sum += cursorStep();
                }
                return sum;
            case SCAN: {
                long[] total = {0};
                for (long i = 0; i < n; i++) {
                    map.forEach((l, e, remaining, hash) -> total[0] += remaining + (long) hash);
                }
                return total[0];
            }
            default: {
                long[] total = {0};
                for (long i = 0; i < n; i++) {
                    map.removeAllUpTo(markLedger, markEntry,
                            (l, e, remaining, hash) -> total[0] += e ^ remaining);
                }
                return total[0];
            }
        }
    }

    private long cycleStep() {
        long n = ops++;
        long acked = n;
        if (driver == Driver.SHUFFLED_CYCLE) {
            long inBlock = n % window;
            acked = n - inBlock + (inBlock * multiplier) % window;
        }
        long removed = map.removeAndGet(acked / perLedger, acked % perLedger);
        if (removed == PendingAcks.NOT_FOUND) {
            throw new IllegalStateException("the window lost sequence " + acked);
        }
        long dispatched = n + window;
        map.addOrReplace(dispatched / perLedger, dispatched % perLedger,
                Dataset.remaining(dispatched), Dataset.hash(dispatched));
        long sum = PendingAcks.remaining(removed);
        if (driver == Driver.PARTIAL_CYCLE && (n & 15) == 0) {
            long ahead = n + 1 + window / 2;
            if (map.getRemaining(ahead / perLedger, ahead % perLedger) > 1) {
                sum += map.updateRemaining(ahead / perLedger, ahead % perLedger, 1) ? 1 : 0;
            }
        }
        return sum;
    }

    private long cursorStep() {
        long l = ledger;
        long e = entry;
        long result;
        switch (experiment) {
            case "add-or-replace":
                result = map.addOrReplace(l, e, Dataset.remaining(index), Dataset.hash(index))
                        ? 1 : 0;
                break;
            case "remove-and-add": {
                long packed = map.removeAndGet(l, e);
                if (packed == PendingAcks.NOT_FOUND) {
                    throw new IllegalStateException("round-robin keys are present");
                }
                map.addOrReplace(l, e, PendingAcks.remaining(packed), PendingAcks.hash(packed));
                result = PendingAcks.remaining(packed);
                break;
            }
            case "update-remaining":
                result = map.updateRemaining(l, e, pass % 2 == 0 ? 1 : -1) ? 1 : 0;
                break;
            case "contains-hit":
                result = map.contains(l, e) ? 1 : 0;
                break;
            default:
                result = Math.max(map.getRemaining(l, e), 0);
        }
        index++;
        entry++;
        if (entry == ledgerLength) {
            entry = 0;
            ledger++;
            if (ledger == dataset.ledgers) {
                ledger = 0;
                index = 0;
                pass++;
            }
            ledgerLength = dataset.entriesInLedger(ledger);
        }
        return result;
    }
}

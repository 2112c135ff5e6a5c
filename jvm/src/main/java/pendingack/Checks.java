package pendingack;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Both implementations against an ordered oracle, as the benchmark calls them: random adds,
 * lookups, removes, updates (the draft's, unguarded), cleanups and full visits on a few ledgers
 * and entry ids around the draft's bitset limit (2^20). Exits non-zero, naming the first
 * difference.
 */
public final class Checks {
    private static final long[] ENTRY_IDS = {0, 1, 2, 3, 5, 40, 63, 64, 65, 1L << 20, (1L << 20) + 1, 1L << 32};

    private Checks() {}

    public static void main(String[] args) {
        for (String implementation : new String[] {"oldProduction", "production"}) {
            for (long seed = 1; seed <= 20; seed++) {
                check(implementation, seed);
            }
        }
        System.out.println("ok");
    }

    private static void check(String implementation, long seed) {
        PendingAckStore store = PendingAckStore.create(implementation);
        SplittableRandom random = new SplittableRandom(seed);
        TreeMap<Long, TreeMap<Long, IntIntPair>> oracle = new TreeMap<>();
        for (int step = 0; step < 3_000; step++) {
            long l = random.nextInt(4);
            long e = ENTRY_IDS[random.nextInt(ENTRY_IDS.length)];
            TreeMap<Long, IntIntPair> ledger = oracle.get(l);
            IntIntPair expected = ledger == null ? null : ledger.get(e);
            String at = implementation + ", seed " + seed + ", step " + step + ": ";
            int choice = random.nextInt(10);
            if (choice < 4) {
                int remaining = random.nextInt(20);
                int hash = random.nextInt();
                expect(store.addPendingAckIfAllowed(l, e, remaining, hash), true, at + "add");
                oracle.computeIfAbsent(l, k -> new TreeMap<>()).put(e, IntIntPair.of(remaining, hash));
            } else if (choice == 4) {
                expect(store.getRemainingUnacked(l, e), expected == null ? -1 : expected.leftInt(), at + "remaining");
                expect(store.contains(l, e), expected != null, at + "contains");
            } else if (choice == 5) {
                expect(store.removeAndGetRemainingUnacked(l, e), expected == null ? -1 : expected.leftInt(),
                        at + "removed");
                if (expected != null) {
                    ledger.remove(e);
                    if (ledger.isEmpty()) {
                        oracle.remove(l);
                    }
                }
            } else if (choice == 6) {
                int acked = random.nextInt(7) - 3;
                expect(store.updateRemainingUnacked(l, e, acked), expected != null, at + "update");
                if (expected != null) {
                    ledger.put(e, IntIntPair.of(expected.leftInt() - acked, expected.rightInt()));
                }
            } else if (choice == 7) {
                long mark = random.nextInt(3) == 0 ? -1 : ENTRY_IDS[random.nextInt(ENTRY_IDS.length)];
                expect(store.removeAllUpTo(l, mark), cut(oracle, l, mark), at + "cleanup");
            } else {
                long want = 0;
                for (TreeMap<Long, IntIntPair> entries : oracle.values()) {
                    for (IntIntPair value : entries.values()) {
                        want += value.leftInt() + value.rightInt();
                    }
                }
                expect(store.forEachAll(), want, at + "visit");
            }
        }
    }

    /** Removes from the oracle what a cleanup at the mark removes; the sum of their counts. */
    private static long cut(TreeMap<Long, TreeMap<Long, IntIntPair>> oracle, long markLedger, long markEntry) {
        long total = 0;
        List<Long> emptied = new ArrayList<>();
        for (Map.Entry<Long, TreeMap<Long, IntIntPair>> ledger : oracle.headMap(markLedger, true).entrySet()) {
            var entries = ledger.getValue().entrySet().iterator();
            while (entries.hasNext()) {
                Map.Entry<Long, IntIntPair> entry = entries.next();
                if (ledger.getKey() < markLedger || entry.getKey() <= markEntry) {
                    total += entry.getValue().leftInt();
                    entries.remove();
                }
            }
            if (ledger.getValue().isEmpty()) {
                emptied.add(ledger.getKey());
            }
        }
        emptied.forEach(oracle::remove);
        return total;
    }

    private static void expect(long got, long want, String what) {
        if (got != want) {
            System.err.println("check failed: " + what + ": expected " + want + ", got " + got);
            System.exit(1);
        }
    }

    private static void expect(boolean got, boolean want, String what) {
        expect(got ? 1 : 0, want ? 1 : 0, what);
    }
}

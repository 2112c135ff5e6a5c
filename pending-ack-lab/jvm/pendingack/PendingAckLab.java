package pendingack;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;
import labkit.Case;
import labkit.JvmLab;
import labkit.Sample;
import labkit.Sink;
import labkit.TimedThreads;
import labkit.Trace;
import labkit.TracedCalls;

/**
 * pending-ack-lab's JVM side: draft PR #26024's two layouts as its benchmark measured them, the
 * nested {@code TreeMap}s ({@code jvm-nested-treemap}) and the primitive-bucketed map with its
 * bitset index ({@code jvm-primitive-bucketed}, its primitive map written here), and the JVM
 * harness floor, on the Rust side's single-threaded experiments, footprints and retained
 * capacities.
 */
public final class PendingAckLab implements JvmLab {
    static Supplier<PendingAcks> design(String name) {
        return JvmLab.design(name, Map.<String, Supplier<PendingAcks>>of(
                "jvm-nested-treemap", NestedTreeMap::new,
                "jvm-primitive-bucketed", PrimitiveBucketed::new,
                "jvm-harness-floor", Floor::new));
    }

    /** The write-up's retained-capacity cases: a peak dataset cleaned up to its newest entries. */
    private static final Object[][] RETAINED = {
        {"50k-in-1-clear-all", "50k-in-1", 0L},
        {"50k-in-1-keep-1", "50k-in-1", 1L},
        {"50k-in-1-keep-1k", "50k-in-1", 1_000L},
        {"50k-in-5-keep-1k", "50k-in-5", 1_000L},
        {"50k-in-20-keep-1k", "50k-in-20", 1_000L},
    };

    /** The peak of a retained-capacity case, cleaned up; the map that remains. */
    static PendingAcks retained(String name, PendingAcks map) {
        for (Object[] c : RETAINED) {
            if (c[0].equals(name)) {
                Dataset peak = Dataset.named((String) c[1]);
                peak.populate(map);
                long last = peak.ledgers - 1;
                long markEntry = peak.entriesInLedger(last) - ((Long) c[2] + 1);
                map.removeAllUpTo(last, Math.max(markEntry, -1), (l, e, r, h) -> {});
                return map;
            }
        }
        throw new IllegalArgumentException("no retained-capacity case `" + name + "`");
    }

    @Override
    public Case open(String design, String experiment, String parameter) {
        Supplier<PendingAcks> make = design(design);
        switch (experiment) {
            case "footprint": {
                Dataset dataset = Dataset.named(parameter);
                return (Case.Retained) () -> {
                    PendingAcks map = make.get();
                    dataset.populate(map);
                    return map;
                };
            }
            case "retained-capacity":
                retained(parameter, make.get());
                return (Case.Retained) () -> retained(parameter, make.get());
            default:
                return new Timed(new Workload(experiment, Dataset.named(parameter), make.get()));
        }
    }

    /** A prepared workload, past its build-up, on one thread. */
    static final class Timed implements Case {
        private final Workload workload;
        /** A one-shot ran and what it removed is not back yet. */
        private boolean consumed;

        Timed(Workload workload) {
            this.workload = workload;
            Sink.consume(workload.run(workload.warmUpOps()));
        }

        @Override
        public Sample run(long warmUp, long ops) throws Exception {
            if (!workload.isOneShot()) {
                return TimedThreads.run(List.of(gate -> {
                    Sink.consume(workload.run(warmUp));
                    gate.pass();
                    Sink.consume(workload.run(ops));
                }));
            }
            // Cleanups: each op timed alone; what it removed goes back untimed before the next.
            long[] timed = {0};
            Sample window = TimedThreads.run(List.of(gate -> {
                gate.pass();
                for (long i = 0; i < ops; i++) {
                    if (consumed) {
                        workload.restore();
                    }
                    long start = System.nanoTime();
                    Sink.consume(workload.run(1));
                    timed[0] += System.nanoTime() - start;
                    consumed = true;
                }
            }));
            return new Sample(timed[0], window.allocatedBytes);
        }
    }

    /**
     * The first {@code n} map calls of the case on {@code jvm-nested-treemap} from its opening on
     * (population, build-up) through its operations as its runner runs them, every call recorded
     * with its answer: the Rust side's trace of the same case must give the same checksum.
     */
    @Override
    public long trace(String experiment, String parameter, long n) {
        Trace trace = new Trace(n);
        PendingAcks traced = new Traced(new NestedTreeMap(), trace);
        switch (experiment) {
            case "footprint":
                Dataset.named(parameter).populate(traced);
                break;
            case "retained-capacity":
                retained(parameter, traced);
                break;
            default: {
                Workload workload = new Workload(experiment, Dataset.named(parameter), traced);
                workload.run(workload.warmUpOps());
                for (long op = 0; trace.recording(); op++) {
                    if (workload.isOneShot() && op > 0) {
                        workload.restore();
                    }
                    workload.run(1);
                }
            }
        }
        return trace.checksum();
    }

    /** Every call of a map recorded in a trace, with its answer and what it visits. */
    static final class Traced extends TracedCalls<PendingAcks> implements PendingAcks {
        Traced(PendingAcks inner, Trace trace) {
            super(inner, trace);
        }

        @Override
        public boolean addOrReplace(long ledger, long entry, int remaining, int hash) {
            boolean added = inner.addOrReplace(ledger, entry, remaining, hash);
            trace.op(1, ledger, entry, remaining, hash, added ? 1 : 0);
            return added;
        }

        @Override
        public int getRemaining(long ledger, long entry) {
            int remaining = inner.getRemaining(ledger, entry);
            trace.op(2, ledger, entry, remaining);
            return remaining;
        }

        @Override
        public boolean contains(long ledger, long entry) {
            boolean found = inner.contains(ledger, entry);
            trace.op(3, ledger, entry, found ? 1 : 0);
            return found;
        }

        @Override
        public long removeAndGet(long ledger, long entry) {
            long removed = inner.removeAndGet(ledger, entry);
            trace.op(4, ledger, entry, removed);
            return removed;
        }

        @Override
        public boolean updateRemaining(long ledger, long entry, int acked) {
            boolean updated = inner.updateRemaining(ledger, entry, acked);
            trace.op(5, ledger, entry, acked, updated ? 1 : 0);
            return updated;
        }

        @Override
        public void removeAllUpTo(long markLedger, long markEntry, Visitor removed) {
            trace.op(6, markLedger, markEntry);
            inner.removeAllUpTo(markLedger, markEntry, (l, e, r, h) -> {
                trace.op(7, l, e, r, h);
                removed.accept(l, e, r, h);
            });
        }

        @Override
        public void forEach(Visitor visitor) {
            trace.op(8);
            inner.forEach((l, e, r, h) -> {
                trace.op(9, l, e, r, h);
                visitor.accept(l, e, r, h);
            });
        }

        @Override
        public long size() {
            return inner.size();
        }
    }

    /**
     * A model-based check against an ordered oracle: random adds, lookups, removes, updates,
     * cleanups and visits, with entry ids at 0, 2^20 and beyond the draft's bitset cap, every
     * answer and the size compared; what a cleanup or a visit passes compared as a sorted list
     * (the draft visits whole ledgers in its hash table's order).
     */
    @Override
    public void check(String design) {
        if (design.equals("jvm-harness-floor")) {
            return; // keeps no entry: not a design, no correctness suite
        }
        for (long seed = 1; seed <= 20; seed++) {
            checkSeed(design(design).get(), seed);
        }
    }

    private static void checkSeed(PendingAcks map, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        TreeMap<Long, TreeMap<Long, Long>> oracle = new TreeMap<>();
        long[] entries = {0, 1, 2, 3, 5, 40, 63, 64, 65, 1L << 20, (1L << 20) + 1, 1L << 32};
        for (int step = 0; step < 3_000; step++) {
            long l = random.nextInt(4);
            long e = entries[random.nextInt(entries.length)];
            TreeMap<Long, Long> ledger = oracle.get(l);
            Long expected = ledger == null ? null : ledger.get(e);
            int choice = random.nextInt(10);
            String at = "seed " + seed + ", step " + step + ": ";
            if (choice < 4) {
                int remaining = random.nextInt(20);
                int hash = random.nextInt();
                boolean added = map.addOrReplace(l, e, remaining, hash);
                expect(added, expected == null, at + "add is new");
                oracle.computeIfAbsent(l, k -> new TreeMap<>())
                        .put(e, PendingAcks.pack(remaining, hash));
            } else if (choice == 4) {
                int want = expected == null ? -1 : PendingAcks.remaining(expected);
                expect(map.getRemaining(l, e) == want, true, at + "remaining");
                expect(map.contains(l, e), expected != null, at + "contains");
            } else if (choice == 5) {
                long removed = map.removeAndGet(l, e);
                expect(removed == (expected == null ? PendingAcks.NOT_FOUND : expected), true,
                        at + "removed value");
                if (expected != null) {
                    ledger.remove(e);
                    if (ledger.isEmpty()) {
                        oracle.remove(l);
                    }
                }
            } else if (choice == 6) {
                int acked = random.nextInt(7) - 3;
                long left = expected == null ? -1
                        : PendingAcks.acked(PendingAcks.remaining(expected), acked);
                expect(map.updateRemaining(l, e, acked), left >= 0, at + "update");
                if (left >= 0) {
                    ledger.put(e, PendingAcks.pack((int) left, PendingAcks.hash(expected)));
                }
            } else if (choice == 7) {
                long markEntry = random.nextInt(3) == 0 ? -1 : entries[random.nextInt(entries.length)];
                List<String> removed = new ArrayList<>();
                map.removeAllUpTo(l, markEntry, (ml, me, r, h) -> removed.add(key(ml, me, r, h)));
                List<String> want = new ArrayList<>();
                var cut = oracle.headMap(l, true).entrySet().iterator();
                while (cut.hasNext()) {
                    Map.Entry<Long, TreeMap<Long, Long>> ledgerEntries = cut.next();
                    var inLedger = ledgerEntries.getValue().entrySet().iterator();
                    while (inLedger.hasNext()) {
                        Map.Entry<Long, Long> x = inLedger.next();
                        if (ledgerEntries.getKey() < l || x.getKey() <= markEntry) {
                            want.add(key(ledgerEntries.getKey(), x.getKey(),
                                    PendingAcks.remaining(x.getValue()), PendingAcks.hash(x.getValue())));
                            inLedger.remove();
                        }
                    }
                    if (ledgerEntries.getValue().isEmpty()) {
                        cut.remove();
                    }
                }
                removed.sort(null);
                want.sort(null);
                expect(removed.equals(want), true, at + "cleanup removed " + removed + ", want " + want);
            } else {
                List<String> seen = new ArrayList<>();
                map.forEach((vl, ve, r, h) -> seen.add(key(vl, ve, r, h)));
                List<String> want = new ArrayList<>();
                oracle.forEach((ol, m) -> m.forEach((oe, v) -> want.add(
                        key(ol, oe, PendingAcks.remaining(v), PendingAcks.hash(v)))));
                seen.sort(null);
                want.sort(null);
                expect(seen.equals(want), true, at + "visit");
            }
            long size = oracle.values().stream().mapToLong(TreeMap::size).sum();
            expect(map.size() == size, true, at + "size " + map.size() + ", want " + size);
        }
    }

    private static String key(long ledger, long entry, int remaining, int hash) {
        return String.format("%05d:%020d:%d:%d", ledger, entry, remaining, hash);
    }

    private static void expect(boolean got, boolean want, String what) {
        if (got != want) {
            throw new AssertionError(what);
        }
    }
}

package dedup;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A topic's deduplication maps ({@code MessageDeduplication}'s highest pushed and persisted
 * sequence ids by producer name) and the two arms of PR #26763 on the pushed one: the topic-wide
 * monitor ({@code jvm-monitor}) and the per-producer update ({@code jvm-replace}).
 */
final class Topics {
    /** The producer every caller of the shared case updates. */
    static final String SHARED = name(0);

    private Topics() {}

    static String name(int producer) {
        return "producer-" + producer;
    }

    /** Which arm updates the pushed map. */
    enum Arm {
        MONITOR,
        ATOMIC;

        static Arm named(String name) {
            switch (name) {
                case "jvm-monitor":
                    return MONITOR;
                case "jvm-replace":
                    return ATOMIC;
                default:
                    throw new IllegalArgumentException(
                            "unknown JVM design `" + name + "`; valid: jvm-monitor, jvm-replace");
            }
        }

        void update(Pushed pushed, String producer, long sequenceId) {
            if (this == MONITOR) {
                pushed.updateWithMonitor(producer, sequenceId);
            } else {
                pushed.updateAtomically(producer, sequenceId);
            }
        }

        void increment(Pushed pushed, String producer) {
            if (this == MONITOR) {
                pushed.incrementWithMonitor(producer);
            } else {
                pushed.incrementAtomically(producer);
            }
        }
    }

    /** The highest pushed sequence id of each producer. */
    static final class Pushed {
        final ConcurrentMap<String, Long> ids = new ConcurrentHashMap<>();

        /** A map holding {@code producer-0} … {@code producer-<n - 1>} at 0. */
        Pushed(int producers) {
            for (int i = 0; i < producers; i++) {
                ids.put(name(i), 0L);
            }
        }

        /** Before #26763: under the topic-wide monitor, put the id when it is newer. */
        void updateWithMonitor(String producer, long sequenceId) {
            synchronized (ids) {
                Long previous = ids.get(producer);
                if (previous == null || sequenceId > previous) {
                    ids.put(producer, sequenceId);
                }
            }
        }

        /**
         * #26763: box the id once, then {@code putIfAbsent} a new producer or
         * {@code replace(prev, boxed)} an older id, until the id is installed or found not newer.
         */
        void updateAtomically(String producer, long sequenceId) {
            Long boxed = sequenceId;
            while (true) {
                Long previous = ids.get(producer);
                if (previous != null && sequenceId <= previous) {
                    return;
                }
                if (previous == null) {
                    if (ids.putIfAbsent(producer, boxed) == null) {
                        return;
                    }
                } else if (ids.replace(producer, previous, boxed)) {
                    return;
                }
            }
        }

        /** The shared case under the monitor: the pushed id plus one, in one call. */
        void incrementWithMonitor(String producer) {
            synchronized (ids) {
                ids.put(producer, ids.get(producer) + 1);
            }
        }

        /** The shared case per producer: read, box the id plus one, replace; again if beaten. */
        void incrementAtomically(String producer) {
            while (true) {
                Long previous = ids.get(producer);
                Long next = previous + 1;
                if (ids.replace(producer, previous, next)) {
                    return;
                }
            }
        }
    }

    /** Both maps of a topic, the persisted one empty until an add completes. */
    static final class Deduplication {
        final Pushed pushed = new Pushed(0);
        final ConcurrentMap<String, Long> persisted = new ConcurrentHashMap<>();

        /** Forgets an inactive producer ({@code purgeInactiveProducers}). */
        void purge(String producer) {
            pushed.ids.remove(producer);
            persisted.remove(producer);
        }
    }
}

package dedup;

import java.util.List;

/**
 * One thread's share of a shape, as the Rust side's `workload::Worker`: its producers and where
 * each one's ids are, admitted round-robin; in the increment shape, each operation retries with
 * the id after the pushed one until it is admitted.
 */
final class Worker {
    final List<Object> producers;
    private final long[] nextIds;
    private final boolean duplicate;
    /** The producer whose pushed id a caller reads again after losing a race. */
    private final String increments;
    private int cursor;
    /** Admissions of the increment shape that another caller beat, since the last reset. */
    long lostRaces;

    Worker(List<Object> producers, boolean duplicate, String increments) {
        this.producers = producers;
        this.nextIds = new long[producers.size()];
        java.util.Arrays.fill(nextIds, 1);
        this.duplicate = duplicate;
        this.increments = increments;
    }

    /** Runs {@code ops} admissions; returns how many were NotDup. */
    long run(Dedup dedup, long ops) {
        long admitted = 0;
        if (increments != null) {
            for (long i = 0; i < ops; i++) {
                admitNext(dedup);
                admitted++;
            }
        } else {
            for (long i = 0; i < ops; i++) {
                if (admitInTurn(dedup) == Dedup.NOT_DUP) {
                    admitted++;
                }
            }
        }
        return admitted;
    }

    /** One operation: the next admission (in the increment shape, until one is admitted). */
    int admitNext(Dedup dedup) {
        if (increments == null) {
            return admitInTurn(dedup);
        }
        Object producer = producers.get(0);
        while (dedup.admit(producer, nextIds[0], nextIds[0]) != Dedup.NOT_DUP) {
            lostRaces++;
            nextIds[0] = dedup.highestPushed(increments) + 1;
        }
        nextIds[0]++;
        return Dedup.NOT_DUP;
    }

    private int admitInTurn(Dedup dedup) {
        int i = cursor;
        long id = nextIds[i];
        if (duplicate) {
            // even steps: below persisted (Dup); odd steps: between persisted and pushed.
            id = (id % Shape.DUPLICATE_PERSISTED) + (id & 1) * Shape.DUPLICATE_PERSISTED;
        }
        int status = dedup.admit(producers.get(i), id, id);
        nextIds[i]++;
        cursor = i + 1 == producers.size() ? 0 : i + 1;
        return status;
    }
}

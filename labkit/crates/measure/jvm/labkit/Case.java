package labkit;

/** One design prepared on one case, as {@link Harness} runs it. */
public interface Case {
    /**
     * Runs {@code warmUp} untimed operations per thread, then {@code ops} measured ones on the
     * same threads ({@link TimedThreads}); returns what the measured ones took. A one-shot case
     * runs {@code ops} separate operations timed one by one and summed, putting back untimed
     * what each consumed before the next one (never after the last).
     */
    Sample run(long warmUp, long ops) throws Exception;

    /** A case that builds a structure to measure the heap it retains, rather than timing operations. */
    interface Retained extends Case {
        /** Builds the structure; the harness keeps it reachable until the next build. */
        Object build() throws Exception;

        @Override
        default Sample run(long warmUp, long ops) {
            throw new UnsupportedOperationException("a retained case is built, not run");
        }
    }
}

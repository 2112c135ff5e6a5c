package labkit;

/**
 * Where measured code leaves its results so that the JIT cannot remove the work that computed
 * them, as JMH's {@code Blackhole}: a value is compared with two volatile fields that hold
 * different numbers, so the test is never true but must be made (two plain loads on x86, no
 * fence), and the value must be computed for it.
 */
public final class Sink {
    private static volatile long first = 1;
    private static volatile long second = 2;
    /** Written only if a value equals both fields, which never happens. */
    private static long bait;

    private Sink() {}

    public static void consume(long value) {
        if (value == first & value == second) {
            bait = value;
        }
    }
}

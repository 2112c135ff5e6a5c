package labkit;

import java.util.LinkedHashMap;
import java.util.Map;

/** What one measured run took: its wall time, what its threads allocated, the lab's own events. */
public final class Sample {
    public final long elapsedNanos;
    /** Bytes allocated by the measuring threads during the measured operations (ThreadMXBean). */
    public final long allocatedBytes;
    /** The lab's own events counted during the measured operations, by name. */
    public final Map<String, Long> events = new LinkedHashMap<>();

    public Sample(long elapsedNanos, long allocatedBytes) {
        this.elapsedNanos = elapsedNanos;
        this.allocatedBytes = allocatedBytes;
    }

    public Sample count(String event, long n) {
        events.merge(event, n, Long::sum);
        return this;
    }
}

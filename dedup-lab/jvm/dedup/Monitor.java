package dedup;

/**
 * {@code jvm-monitor}: Pulsar before PR #26763, the topic-wide monitor: every admission of every
 * producer synchronizes on the topic's pushed map, reads the producer's id and, when the batch is
 * new, puts its highest id.
 */
final class Monitor extends Watermarks {
    @Override
    public int admit(Object producer, long low, long high) {
        String name = (String) producer;
        synchronized (pushed) {
            Long last = pushed.get(name);
            if (last != null && low <= last) {
                return duplicate(name, low);
            }
            pushed.put(name, high);
        }
        return NOT_DUP;
    }
}

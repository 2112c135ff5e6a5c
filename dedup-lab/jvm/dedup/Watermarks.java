package dedup;

import java.util.concurrent.ConcurrentHashMap;

/** Pulsar's two maps of a topic's producers: the highest pushed and persisted sequence ids. */
abstract class Watermarks implements Dedup {
    final ConcurrentHashMap<String, Long> pushed = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Long> persisted = new ConcurrentHashMap<>();

    @Override
    public Object connect(String producer) {
        return producer;
    }

    /** The answer for a batch whose lowest id is at or below {@code pushed}: no write. */
    final int duplicate(String producer, long low) {
        Long done = persisted.get(producer);
        return done != null && low <= done ? DUP : UNKNOWN;
    }

    @Override
    public void recordPersisted(Object producer, long high) {
        persisted.put((String) producer, high);
    }

    @Override
    public long highestPushed(String producer) {
        Long last = pushed.get(producer);
        return last == null ? -1 : last;
    }

    @Override
    public void purge(String producer) {
        pushed.remove(producer);
        persisted.remove(producer);
    }
}

package dedup;

/**
 * A producer-sequence deduplicator for one topic, as Pulsar's
 * {@code MessageDeduplication.isDuplicateNormal} answers (PR #26763): NotDup when the batch's
 * lowest id is above the producer's pushed id (and pushed becomes its highest), otherwise Dup when
 * that id is at or below the persisted one, else Unknown. The Rust side's `SequenceDedup`, for
 * sequence ids.
 */
interface Dedup {
    int NOT_DUP = 0;
    int DUP = 1;
    int UNKNOWN = 2;

    /** What a connection keeps: the producer's name, as Pulsar's producer object holds it. */
    Object connect(String producer);

    int admit(Object producer, long low, long high);

    void recordPersisted(Object producer, long high);

    /** The pushed id, or -1 when there is none. */
    long highestPushed(String producer);

    /** Forgets an inactive producer. */
    void purge(String producer);
}

package pendingack;

/** Pulsar's {@code IntIntPair} record: a pending entry's remaining count and sticky key hash. */
record IntIntPair(int leftInt, int rightInt) {
    static IntIntPair of(int left, int right) {
        return new IntIntPair(left, right);
    }
}

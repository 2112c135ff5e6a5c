package dedup;

/**
 * {@code jvm-replace}: PR #26763, the per-producer update: the id is boxed once, then read
 * without a lock and installed with {@code putIfAbsent} (a new producer) or
 * {@code replace(name, prev, boxed)} (an old one, which locks that producer's bin only), going
 * round again when another connection of the producer won; the re-read may then find the batch a
 * duplicate.
 */
final class Replace extends Watermarks {
    @Override
    public int admit(Object producer, long low, long high) {
        String name = (String) producer;
        Long boxed = high;
        while (true) {
            Long prev = pushed.get(name);
            if (prev != null && low <= prev) {
                return duplicate(name, low);
            }
            if (prev == null) {
                if (pushed.putIfAbsent(name, boxed) == null) {
                    return NOT_DUP;
                }
            } else if (pushed.replace(name, prev, boxed)) {
                return NOT_DUP;
            }
        }
    }
}

package labkit;

/**
 * FNV-1a over 64-bit words, little-endian byte by byte: the checksum of the first {@code limit}
 * operations of a stream, which the Rust side computes the same way (labkit's `jvm::Trace`), so a
 * test can tell that both languages drive the same workload. Operations past the limit are
 * counted, not hashed.
 */
public final class Trace {
    private final long limit;
    private long hash = 0xcbf29ce484222325L;
    private long operations;

    public Trace(long limit) {
        this.limit = limit;
    }

    /** Whether the next operation is still hashed: its arguments are worth computing. */
    public boolean recording() {
        return operations < limit;
    }

    public Trace word(long value) {
        for (int i = 0; i < 8; i++) {
            hash ^= (value >>> (8 * i)) & 0xff;
            hash *= 0x100000001b3L;
        }
        return this;
    }

    /**
     * A string: its UTF-8 bytes, then 0xff (which no UTF-8 byte is), so strings cannot run
     * together; part of the next operation, so past the limit it is not hashed either.
     */
    public Trace text(String value) {
        if (!recording()) {
            return this;
        }
        for (byte b : value.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        hash ^= 0xff;
        hash *= 0x100000001b3L;
        return this;
    }

    /** One operation: its kind and its arguments (a string argument goes first, {@link #text}). */
    public Trace op(long kind, long... args) {
        if (recording()) {
            word(kind);
            for (long a : args) {
                word(a);
            }
        }
        operations++;
        return this;
    }

    public long operations() {
        return operations;
    }

    public long checksum() {
        return hash;
    }
}

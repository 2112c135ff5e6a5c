package labkit;

import java.util.Map;
import java.util.function.Supplier;

/**
 * A lab's designs written in Java: what the kit's {@link Harness} asks of a lab's JVM side. The
 * Rust side describes the lab (its designs, experiments and parameters); the JVM side opens the
 * same cases by the same names and generates exactly the operations the Rust side does.
 */
public interface JvmLab {
    /** {@code design} prepared on the case {@code experiment/parameter}: built, nothing run yet. */
    Case open(String design, String experiment, String parameter) throws Exception;

    /**
     * A checksum ({@link Trace}) of the first {@code n} operations the case issues, which the
     * Rust side computes the same way: both languages must drive the same workload.
     */
    long trace(String experiment, String parameter, long n) throws Exception;

    /** Checks the design's answers on the lab's own correctness scenarios; throws on a failure. */
    void check(String design) throws Exception;

    /**
     * The maker of the design called {@code name} among a lab's {@code designs} (its JVM names,
     * the harness floor's among them), or an error naming it.
     */
    static <T> Supplier<T> design(String name, Map<String, Supplier<T>> designs) {
        Supplier<T> make = designs.get(name);
        if (make == null) {
            throw new IllegalArgumentException("unknown JVM design `" + name + "`");
        }
        return make;
    }
}

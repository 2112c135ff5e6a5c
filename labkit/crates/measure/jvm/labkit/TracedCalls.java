package labkit;

/**
 * A design wrapped so that each of its calls goes into a {@link Trace} with its answer: a lab's
 * traced class extends this and implements the lab's interface, one method a call, each calling
 * {@code inner} and recording what the Rust side's trace of the same case records.
 */
public abstract class TracedCalls<T> {
    protected final T inner;
    protected final Trace trace;

    protected TracedCalls(T inner, Trace trace) {
        this.inner = inner;
        this.trace = trace;
    }
}

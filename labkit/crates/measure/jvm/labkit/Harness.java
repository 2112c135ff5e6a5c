package labkit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The JVM side of a measurement: one JVM per design (and per A/A fork), driven by the Rust side
 * over a line protocol on stdin and stdout (labkit's `jvm` module), one reply line per request:
 *
 * <pre>
 * open EXPERIMENT PARAMETER   -> ok HANDLE warm-ms=MS warm-runs=N warm=quiet|compiling|none
 * run HANDLE WARM_UP OPS      -> ok ns=NANOS allocated=BYTES [event.NAME=COUNT ...]
 * run HANDLE 0 1              -> ok ns=NANOS retained=BYTES          (a retained case)
 * close HANDLE                -> ok
 * trace EXPERIMENT PARAMETER N -> ok checksum=HASH
 * check                       -> ok
 * </pre>
 *
 * Any failure is one line, {@code error MESSAGE}, and the harness goes on; end of input ends it.
 *
 * <p>Warm-up, the first time a case is opened in this JVM (the rule the report states): runs of
 * the case, each grown to at least {@value #WARM_RUN_MILLIS} ms, until the JIT has compiled
 * nothing ({@link CompilationMXBean#getTotalCompilationTime()} unchanged) for
 * {@value #QUIET_RUNS} runs in a row and at least {@value #WARM_MIN_MILLIS} ms have passed; at
 * most {@value #WARM_MAX_MILLIS} ms (then the case is measured still compiling, and the reply
 * says so). With {@code -Dlabkit.warmup=smoke} one run of one operation. A retained case is
 * measured {@value #SETTLING_BUILDS} times first instead, and those measurements dropped, so that
 * the classes it loads and the JVM's first-use caches are not counted as its footprint.
 */
public final class Harness {
    static final long WARM_RUN_MILLIS = 10;
    static final int QUIET_RUNS = 3;
    static final long WARM_MIN_MILLIS = 100;
    static final long WARM_MAX_MILLIS = 5_000;
    /** Measurements of a retained case dropped before the ones that count. */
    static final int SETTLING_BUILDS = 1;
    /** Full collections at most until two in a row find the same live bytes. */
    static final int SETTLING_HISTOGRAMS = 5;

    private final JvmLab lab;
    private final String design;
    private final boolean smoke;
    private final Map<Integer, Case> cases = new HashMap<>();
    /**
     * The structure the last retained case built, kept reachable until the next one is built: a
     * field, so that keeping it allocates nothing between the two histograms.
     */
    private Object built;
    private final Set<String> warmed = new HashSet<>();
    private int nextHandle = 1;

    private Harness(JvmLab lab, String design, boolean smoke) {
        this.lab = lab;
        this.design = design;
        this.smoke = smoke;
    }

    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        // Anything a lab prints goes to stderr: stdout carries only the protocol.
        System.setOut(System.err);
        if (args.length != 2) {
            protocol.println("error usage: labkit.Harness LAB_CLASS DESIGN");
            return;
        }
        JvmLab lab;
        try {
            lab = (JvmLab) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        } catch (Throwable t) {
            protocol.println("error " + oneLine(t));
            return;
        }
        boolean smoke = "smoke".equals(System.getProperty("labkit.warmup"));
        Harness harness = new Harness(lab, args[1], smoke);
        // The heap histogram's machinery is set up before anything is measured.
        liveBytes();
        protocol.println("ok ready");
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String reply;
            try {
                reply = "ok " + harness.serve(line.trim().split(" "));
            } catch (Throwable t) {
                reply = "error " + oneLine(t);
            }
            protocol.println(reply);
        }
    }

    private String serve(String[] words) throws Exception {
        switch (words[0]) {
            case "open":
                return open(word(words, 1), word(words, 2));
            case "run":
                return run(handle(words), number(words, 2), number(words, 3));
            case "close":
                cases.remove(handle(words));
                return "closed";
            case "trace":
                return "checksum=" + lab.trace(word(words, 1), word(words, 2), number(words, 3));
            case "check":
                lab.check(design);
                return "checked";
            default:
                throw new IllegalArgumentException("unknown request `" + words[0] + "`");
        }
    }

    private String open(String experiment, String parameter) throws Exception {
        Case opened = lab.open(design, experiment, parameter);
        int handle = nextHandle++;
        cases.put(handle, opened);
        String key = experiment + "/" + parameter;
        if (!warmed.add(key)) {
            return handle + " warm-ms=0 warm-runs=0 warm=none";
        }
        if (opened instanceof Case.Retained) {
            // Built, collected and built again before the first measurement: the classes it
            // loads and the JVM's first-use caches (call sites, cleaners) settle first.
            for (int i = 0; i < SETTLING_BUILDS; i++) {
                retain((Case.Retained) opened);
            }
            built = null;
            return handle + " warm-ms=0 warm-runs=" + SETTLING_BUILDS + " warm=none";
        }
        return handle + " " + warm(opened);
    }

    /** The warm-up rule of the class comment. */
    private String warm(Case opened) throws Exception {
        if (smoke) {
            opened.run(0, 1);
            return "warm-ms=0 warm-runs=1 warm=quiet";
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long began = System.nanoTime();
        long ops = 1;
        int runs = 0;
        int quiet = 0;
        while (true) {
            long compiled = jit.getTotalCompilationTime();
            long start = System.nanoTime();
            opened.run(0, ops);
            long took = System.nanoTime() - start;
            runs++;
            quiet = jit.getTotalCompilationTime() == compiled ? quiet + 1 : 0;
            long sinceBegan = (System.nanoTime() - began) / 1_000_000;
            if (quiet >= QUIET_RUNS && sinceBegan >= WARM_MIN_MILLIS) {
                return "warm-ms=" + sinceBegan + " warm-runs=" + runs + " warm=quiet";
            }
            if (sinceBegan >= WARM_MAX_MILLIS) {
                return "warm-ms=" + sinceBegan + " warm-runs=" + runs + " warm=compiling";
            }
            if (took < WARM_RUN_MILLIS * 1_000_000 && ops < (1L << 40)) {
                ops *= 2;
            }
        }
    }

    private String run(int handle, long warmUp, long ops) throws Exception {
        Case opened = cases.get(handle);
        if (opened == null) {
            throw new IllegalArgumentException("no open case " + handle);
        }
        if (opened instanceof Case.Retained) {
            return retain((Case.Retained) opened);
        }
        Sample sample = opened.run(warmUp, ops);
        StringBuilder reply = new StringBuilder();
        reply.append("ns=").append(sample.elapsedNanos);
        reply.append(" allocated=").append(sample.allocatedBytes);
        for (Map.Entry<String, Long> e : sample.events.entrySet()) {
            reply.append(" event.").append(e.getKey()).append('=').append(e.getValue());
        }
        return reply.toString();
    }

    /**
     * Builds a retained case's structure and keeps it; the heap it added (live bytes after a full
     * collection, before and after) and the time the build took.
     */
    private String retain(Case.Retained retained) throws Exception {
        built = null;
        long before = liveBytes();
        long start = System.nanoTime();
        built = retained.build();
        long elapsed = System.nanoTime() - start;
        long after = liveBytes();
        return "ns=" + elapsed + " retained=" + Math.max(0, after - before);
    }

    /**
     * Bytes of every live object after a full collection, settled: the histogram is taken again,
     * a few milliseconds apart, until two in a row agree (at most {@value #SETTLING_HISTOGRAMS}),
     * because a collection hands references to the JVM's reference-handler and cleaner threads,
     * which free what they hold a moment later.
     */
    static long liveBytes() throws Exception {
        long last = histogramTotal();
        for (int i = 1; i < SETTLING_HISTOGRAMS; i++) {
            Thread.sleep(5);
            long again = histogramTotal();
            if (again == last) {
                break;
            }
            last = again;
        }
        return last;
    }

    /**
     * The total of the heap's class histogram ({@code GC.class_histogram}, which collects
     * first).
     */
    private static long histogramTotal() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
        String histogram = (String) server.invoke(name, "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        for (String line : histogram.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("Total")) {
                String[] columns = trimmed.split("\\s+");
                return Long.parseLong(columns[columns.length - 1]);
            }
        }
        throw new IllegalStateException("the class histogram has no Total line");
    }

    private static String word(String[] words, int at) {
        if (at >= words.length) {
            throw new IllegalArgumentException("the request lacks its argument " + at);
        }
        return words[at];
    }

    private static long number(String[] words, int at) {
        return Long.parseLong(word(words, at));
    }

    private static int handle(String[] words) {
        return Integer.parseInt(word(words, 1));
    }

    static String oneLine(Throwable t) {
        String text = t.toString();
        StackTraceElement[] at = t.getStackTrace();
        if (at.length > 0) {
            text += " at " + at[0];
        }
        return text.replace('\n', ' ').replace('\r', ' ');
    }
}

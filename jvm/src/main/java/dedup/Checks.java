package dedup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * What the benchmark's two arms must keep under concurrency, checked for each: no increment of
 * the shared producer is lost, each producer's pushed id never goes backwards and ends at the
 * highest id offered, a new producer is added, and an id that is not newer changes nothing.
 * Exits non-zero, naming the first broken promise.
 */
public final class Checks {
    private static final int THREADS = 32;
    private static final int CALLS = 20_000;

    private Checks() {}

    public static void main(String[] args) throws InterruptedException {
        for (Topics.Arm arm : Topics.Arm.values()) {
            single(arm);
            increments(arm);
            racingUpdates(arm);
        }
        System.out.println("ok");
    }

    private static void single(Topics.Arm arm) {
        Topics.Pushed pushed = new Topics.Pushed(1);
        arm.update(pushed, "new", 5);
        expect(pushed.ids.get("new"), 5, arm + ": a new producer is added");
        arm.update(pushed, "new", 3);
        expect(pushed.ids.get("new"), 5, arm + ": an older id changes nothing");
        arm.update(pushed, "new", 5);
        expect(pushed.ids.get("new"), 5, arm + ": the same id changes nothing");
        arm.increment(pushed, Topics.SHARED);
        expect(pushed.ids.get(Topics.SHARED), 1, arm + ": an increment adds one");
    }

    private static void increments(Topics.Arm arm) throws InterruptedException {
        Topics.Pushed pushed = new Topics.Pushed(1);
        race(() -> {
            for (int i = 0; i < CALLS; i++) {
                arm.increment(pushed, Topics.SHARED);
            }
        });
        expect(pushed.ids.get(Topics.SHARED), (long) THREADS * CALLS,
                arm + ": " + THREADS + " threads incrementing one producer lose no increment");
    }

    private static void racingUpdates(Topics.Arm arm) throws InterruptedException {
        Topics.Pushed pushed = new Topics.Pushed(0);
        List<String> backwards = new ArrayList<>();
        race(() -> {
            long seen = -1;
            for (long id = 1; id <= CALLS; id++) {
                arm.update(pushed, "raced", id);
                long now = pushed.ids.get("raced");
                if (now < seen || now < id) {
                    synchronized (backwards) {
                        backwards.add(now + " after " + Math.max(seen, id));
                    }
                }
                seen = now;
            }
        });
        expect(backwards.size(), 0, arm + ": pushed never goes backwards " + backwards);
        expect(pushed.ids.get("raced"), CALLS, arm + ": pushed ends at the highest id");
    }

    /** Runs {@code body} on {@link #THREADS} threads started together. */
    private static void race(Runnable body) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                body.run();
            });
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void expect(long got, long want, String what) {
        if (got != want) {
            System.err.println("check failed: " + what + ": expected " + want + ", got " + got);
            System.exit(1);
        }
    }
}

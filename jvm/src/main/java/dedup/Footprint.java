package dedup;

import org.openjdk.jol.info.GraphLayout;

/**
 * The heap a topic's deduplication maps hold after one message from each of {@code producers}
 * producers, all but the newest {@code kept} then purged, weighed with JOL
 * ({@code GraphLayout.parseInstance(maps).totalSize()}: every object the maps reach, shared ones
 * such as the cached {@code Long} 0 included).
 *
 * <p>Usage: {@code dedup.Footprint <jvm-monitor|jvm-replace> <producers> <kept>}; prints
 * {@code retained=<bytes>}.
 */
public final class Footprint {
    private Footprint() {}

    public static void main(String[] args) {
        if (args.length != 3) {
            throw new IllegalArgumentException(
                    "usage: dedup.Footprint <jvm-monitor|jvm-replace> <producers> <kept>");
        }
        Topics.Arm arm = Topics.Arm.named(args[0]);
        int producers = Integer.parseInt(args[1]);
        int kept = Integer.parseInt(args[2]);
        // Names are made as producers connect, as they arrive over the network.
        Topics.Deduplication topic = new Topics.Deduplication();
        for (int i = 0; i < producers; i++) {
            arm.update(topic.pushed, Topics.name(i), 0);
        }
        for (int i = 0; i < producers - kept; i++) {
            topic.purge(Topics.name(i));
        }
        System.out.println("retained=" + GraphLayout.parseInstance(topic).totalSize());
    }
}

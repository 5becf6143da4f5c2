package io.emq.migrate.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The most heap found in use right after a garbage collection since {@link #watch()}: what the
 * program really holds, unlike the pools' peaks, which include garbage not yet collected.
 */
final class LiveHeap {
    private static final AtomicLong PEAK = new AtomicLong();
    private static final AtomicLong PEAK_AFTER_FULL_GC = new AtomicLong();
    private static Thread sampler;

    private LiveHeap() {
    }

    static void watch() {
        watch(0);
    }

    /**
     * As {@link #watch()}, and with {@code fullGcEverySeconds} above 0 also forces a full collection that
     * often and keeps the most heap in use after one: the live data alone, no garbage of the old generation.
     */
    static void watch(int fullGcEverySeconds) {
        PEAK.set(0);
        PEAK_AFTER_FULL_GC.set(0);
        if (fullGcEverySeconds > 0 && sampler == null) {
            sampler = new Thread(() -> {
                while (true) {
                    try {
                        Thread.sleep(fullGcEverySeconds * 1000L);
                    } catch (InterruptedException e) {
                        return;
                    }
                    PEAK_AFTER_FULL_GC.accumulateAndGet(afterFullGc(), Math::max);
                }
            }, "live-heap-sampler");
            sampler.setDaemon(true);
            sampler.start();
        }
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((n, handback) -> {
                if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                    long used = info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                            .filter(e -> heapPools.contains(e.getKey())).mapToLong(e -> e.getValue().getUsed()).sum();
                    PEAK.accumulateAndGet(used, Math::max);
                }
            }, null, null);
        }
    }

    /** Forces a full collection now and returns the heap in use right after it, in bytes. */
    static long afterFullGc() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** The most heap in use right after a forced full collection, in bytes (0 without {@code fullGcEverySeconds}). */
    static long peakAfterFullGc() {
        return PEAK_AFTER_FULL_GC.get();
    }

    static long peakMiB() {
        return PEAK.get() >> 20;
    }
}

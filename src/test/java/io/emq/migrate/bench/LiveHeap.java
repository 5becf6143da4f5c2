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

    private LiveHeap() {
    }

    static void watch() {
        PEAK.set(0);
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

    static long peakMiB() {
        return PEAK.get() >> 20;
    }
}

package io.emq.migrate.v1;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** A v1 queue: its key prefix ({@code bull} by default) and its name; every key starts {@code P:Q:}. */
public record QueueRef(Bytes prefix, Bytes name) implements Comparable<QueueRef> {

    public static QueueRef of(String prefix, String name) {
        return new QueueRef(Bytes.utf8(prefix), Bytes.utf8(name));
    }

    /** {@code P:Q:}, the start of every key of this queue. */
    public Bytes base() {
        return prefix.concat(":").concat(name).concat(":");
    }

    /** {@code P:Q}, the bare key where the v1 stalled-check wrapper leaves a stray hash. */
    public Bytes bareKey() {
        return prefix.concat(":").concat(name);
    }

    public Bytes key(String suffix) {
        return base().concat(suffix);
    }

    public Bytes key(QueueStructure structure) {
        return key(structure.suffix());
    }

    public Bytes jobKey(Bytes id) {
        return base().concat(id);
    }

    public Bytes jobSubKey(Bytes id, JobSubKind sub) {
        return jobKey(id).concat(":").concat(sub.suffix());
    }

    /** The id of the job whose per-job key {@code key} is ({@code P:Q:<id>:<suffix>}); empty when it is none of this queue. */
    public Optional<Bytes> jobOfSubKey(Bytes key) {
        if (!key.startsWith(base())) {
            return Optional.empty();
        }
        Bytes rest = key.dropPrefix(base());
        return Arrays.stream(JobSubKind.values()).filter(kind -> kind.shapes(rest)).findFirst()
                .map(kind -> rest.dropSuffix(kind.colonSuffix()));
    }

    /** Every key job {@code id} may have: its hash and each per-job key. */
    public List<Bytes> keysOfJob(Bytes id) {
        List<Bytes> keys = new ArrayList<>(List.of(jobKey(id)));
        for (JobSubKind sub : JobSubKind.values()) {
            keys.add(jobSubKey(id, sub));
        }
        return keys;
    }

    /** {@code P:Q} as text, for reports. */
    public String display() {
        return prefix.display() + ":" + name.display();
    }

    @Override
    public int compareTo(QueueRef o) {
        int c = prefix.compareTo(o.prefix);
        return c != 0 ? c : name.compareTo(o.name);
    }
}

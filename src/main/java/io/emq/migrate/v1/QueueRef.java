package io.emq.migrate.v1;

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

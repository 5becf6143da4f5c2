package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A v1 job's hash as {@code HGETALL} replies it: fields and values alternating, kept as read. A field
 * is found by comparing its bytes with each field's in turn ({@link #raw}): a job hash has about ten
 * fields, so nothing is hashed. As a {@link java.util.Map} it is read-only and copies what it hands out.
 */
final class FlatHash extends AbstractMap<Bytes, Bytes> {
    static final FlatHash EMPTY = new FlatHash(List.of());

    /** Field, value, field, value…; nothing else holds or changes them. */
    private final List<byte[]> flat;

    private FlatHash(List<byte[]> flat) {
        this.flat = flat;
    }

    /** A hash of these alternating fields and values (a reply just read: the arrays are kept, not copied). */
    static FlatHash of(List<byte[]> flat) {
        if (flat.size() % 2 != 0) {
            throw new IllegalArgumentException("a hash reply of " + flat.size() + " items: fields and values must pair");
        }
        return flat.isEmpty() ? EMPTY : new FlatHash(flat);
    }

    /** The value of this field, the hash's own array (not to be changed), or null when the hash has no such field. */
    byte[] raw(byte[] field) {
        for (int i = 0; i < flat.size(); i += 2) {
            if (Arrays.equals(flat.get(i), field)) {
                return flat.get(i + 1);
            }
        }
        return null;
    }

    /** The number of fields. */
    @Override
    public int size() {
        return flat.size() / 2;
    }

    /** The i-th field as read (the hash's own array). */
    byte[] fieldAt(int i) {
        return flat.get(2 * i);
    }

    /** The i-th value as read (the hash's own array). */
    byte[] valueAt(int i) {
        return flat.get(2 * i + 1);
    }

    @Override
    public Bytes get(Object key) {
        byte[] value = key instanceof Bytes field ? raw(field.raw()) : null;
        return value == null ? null : Bytes.of(value);
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof Bytes field && raw(field.raw()) != null;
    }

    @Override
    public Set<Entry<Bytes, Bytes>> entrySet() {
        Set<Entry<Bytes, Bytes>> entries = new LinkedHashSet<>();
        for (int i = 0; i < size(); i++) {
            entries.add(new SimpleImmutableEntry<>(Bytes.of(fieldAt(i)), Bytes.of(valueAt(i))));
        }
        return Collections.unmodifiableSet(entries);
    }
}

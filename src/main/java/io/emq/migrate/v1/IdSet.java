package io.emq.migrate.v1;

import java.util.function.Consumer;

/**
 * A set of byte-string ids held compactly: their bytes in one {@link ByteArena}, an {@link IdIndex}
 * over them; about 20 bytes an id of a few bytes, where a {@code HashSet} of {@link Bytes} costs
 * about 100. For the working sets of a pass over a queue of millions. Add-only.
 */
public final class IdSet {
    private final ByteArena ids = new ByteArena(1024);
    private final IdIndex index = new IdIndex(ids, 1024);

    public void add(Bytes id) {
        if (!contains(id)) {
            index.putIfAbsent(ids.add(id.raw()));
        }
    }

    public boolean contains(Bytes id) {
        return index.contains(id);
    }

    public int size() {
        return ids.size();
    }

    /** Each id, in the order added. */
    public void forEach(Consumer<Bytes> each) {
        for (int i = 0; i < ids.size(); i++) {
            each.accept(ids.get(i));
        }
    }
}

package io.emq.migrate.migrate;

import io.emq.migrate.v1.Bytes;
import io.emq.migrate.v1.QueueRef;
import io.emq.migrate.wire.Wire;
import java.util.List;

/** How a batch of v1 jobs is read, each with its digest, in order: what is asked of each about its logs list and flow keys ({@link SourceFence}). */
@FunctionalInterface
interface JobRead {
    List<SourceFence.Job> read(Wire source, QueueRef q, List<Bytes> ids);
}

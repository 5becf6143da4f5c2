package io.emq.migrate.v1.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.emq.migrate.v1.QueueRef;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who may migrate under which v2 name (pure; the target's holders are given). */
class V2NamesTest {
    private static final QueueRef A = QueueRef.of("bull", "a");
    private static final QueueRef B = QueueRef.of("bull", "b");
    private static final QueueRef ECHO_A = QueueRef.of("echo", "a");

    private static V2Names names(List<QueueRef> queues, Map<String, String> renames, Map<String, V2Names.Holder> target) {
        return new V2Names(queues, renames, name -> Optional.ofNullable(target.get(name)), V2Names.Journaled.NONE);
    }

    @Test
    void aChainOfRenamesTakesNoNameTwice() {
        V2Names n = names(List.of(A, B), Map.of("a", "b", "b", "c"), Map.of());
        assertEquals(Optional.of("b"), n.v2Name(A));
        assertEquals(Optional.of("c"), n.v2Name(B));
        assertEquals(Optional.empty(), n.conflict(A));
        assertEquals(Optional.empty(), n.conflict(B));
    }

    @Test
    void theRenamedQueueYieldsToOneKeepingItsOwnName() {
        V2Names n = names(List.of(A, B), Map.of("a", "b"), Map.of());
        assertEquals(Optional.of("--rename bull:a=b: v2 name 'b' is also the v2 name of v1 queue bull:b;"
                + " choose a name no other queue migrates under"), n.conflict(A));
        assertEquals(Optional.empty(), n.conflict(B), "b keeps its own name");
    }

    @Test
    void oneNameUnderTwoPrefixesRefusesBothUntilOneIsRenamed() {
        V2Names n = names(List.of(A, ECHO_A), Map.of(), Map.of());
        assertEquals(Optional.of("v1 queue echo:a also migrates as v2 queue 'a';"
                + " give one of them another name with --rename PREFIX:QUEUE=NEW"), n.conflict(A));
        assertEquals(Optional.of("v1 queue bull:a also migrates as v2 queue 'a';"
                + " give one of them another name with --rename PREFIX:QUEUE=NEW"), n.conflict(ECHO_A));
        V2Names one = names(List.of(A, ECHO_A), Map.of("echo:a", "echo-a"), Map.of());
        assertEquals(Optional.of("echo-a"), one.v2Name(ECHO_A));
        assertEquals(Optional.of("a"), one.v2Name(A), "a rename by PREFIX:QUEUE renames that queue only");
        assertEquals(Optional.empty(), one.conflict(A));
        assertEquals(Optional.empty(), one.conflict(ECHO_A));
        assertEquals(List.of(), V2Names.unknownRenames(List.of(A, ECHO_A), Map.of("echo:a", "echo-a")));
    }

    @Test
    void aJournalOfAnotherV1QueueRefusesEvenAQueueKeepingItsName() {
        V2Names n = names(List.of(A), Map.of(), Map.of("a", new V2Names.Holder.Migration("echo:a")));
        assertEquals(Optional.of("v2 queue 'a' on the target holds the migration of v1 queue echo:a;"
                + " choose another name with --rename"), n.conflict(A));
        V2Names own = names(List.of(A), Map.of(), Map.of("a", new V2Names.Holder.Migration("bull:a")));
        assertEquals(Optional.empty(), own.conflict(A), "its own journal: a resumed run");
        V2Names nativeQueue = names(List.of(A), Map.of(), Map.of("a", new V2Names.Holder.NativeQueue()));
        assertEquals(Optional.empty(), nativeQueue.conflict(A), "its own name merges into the v2 queue, as before");
    }

    @Test
    void renamesOfNoQueueAndInvalidNamesAreToldApart() {
        V2Names n = names(List.of(A), Map.of("zz", "y", "a", "not valid"), Map.of());
        assertEquals(List.of("zz"), V2Names.unknownRenames(List.of(A), Map.of("zz", "y", "a", "not valid")));
        assertEquals(Optional.empty(), n.v2Name(A));
        assertEquals(Optional.empty(), n.conflict(A), "an invalid name is refused as such, not as taken");
    }
}

package io.emq.migrate.keyspace;

import io.emq.migrate.keyspace.ParsedKey.QueueKey;
import io.emq.migrate.keyspace.ParsedKey.Rejected;
import io.emq.migrate.keyspace.ParsedKey.Rejection;
import io.emq.migrate.keyspace.ParsedKey.Reserve;
import io.emq.migrate.keyspace.ParsedKey.ReserveKey;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The total parse of the closed v2 key grammar. Every input, including empty and invalid UTF-8,
 * yields a {@link ParsedKey}; nothing here throws. Bytes are read one char per byte, so anything
 * outside ASCII simply fails the name rules.
 */
public final class KeyGrammar {
    private static final String QUEUE_OPEN = "emq:{";
    private static final String RESERVE_OPEN = "{emq}:";

    private KeyGrammar() {
    }

    public static ParsedKey parse(String key) {
        return parse(key == null ? new byte[0] : key.getBytes(StandardCharsets.UTF_8));
    }

    public static ParsedKey parse(byte[] key) {
        String k = new String(key, StandardCharsets.ISO_8859_1);
        if (k.isEmpty()) {
            return reject(Rejection.EMPTY, "empty key");
        }
        if (k.startsWith(RESERVE_OPEN)) {
            return parseReserve(k.substring(RESERVE_OPEN.length()), k);
        }
        if (k.startsWith(QUEUE_OPEN)) {
            return parseQueueKey(k);
        }
        if (k.startsWith("emq:")) {
            return reject(Rejection.UNBRACED_EMQ, "unbraced emq: key; v2 keys are emq:{<queue>}:<type>");
        }
        if (k.startsWith("bull:")) {
            return reject(Rejection.BULL_KEY, "a v1 (bull:) key, not part of the v2 grammar");
        }
        return reject(Rejection.FOREIGN, "neither emq:{<queue>}: nor {emq}: prefixed");
    }

    private static ParsedKey parseReserve(String rest, String key) {
        for (Reserve member : new Reserve[] {Reserve.VERSION, Reserve.LOCKS, Reserve.BUNDLE}) {
            if (rest.equals(member.word())) {
                return new ReserveKey(member, Optional.empty());
            }
        }
        String migration = Reserve.MIGRATION.word() + ":";
        if (rest.startsWith(migration)) {
            String q = rest.substring(migration.length());
            Optional<ParsedKey> bad = queueNameRejection(q);
            return bad.orElseGet(() -> new ReserveKey(Reserve.MIGRATION, Optional.of(q)));
        }
        return reject(Rejection.UNKNOWN_RESERVE,
                "'" + Names.printable(key) + "' is not a reserve member (version, locks, bundle, migration:<queue>)");
    }

    private static ParsedKey parseQueueKey(String k) {
        int close = k.indexOf('}', QUEUE_OPEN.length());
        if (close < 0) {
            return reject(Rejection.UNTERMINATED_HASHTAG, "emq:{ without a closing }");
        }
        String q = k.substring(QUEUE_OPEN.length(), close);
        Optional<ParsedKey> bad = queueNameRejection(q);
        if (bad.isPresent()) {
            return bad.get();
        }
        if (close + 1 >= k.length() || k.charAt(close + 1) != ':') {
            return reject(Rejection.MISSING_SEPARATOR, "the hashtag {" + q + "} must be followed by ':'");
        }
        String suffix = k.substring(close + 2);
        ParsedPart part = parseSuffix(suffix);
        if (part.rejected() != null) {
            return part.rejected();
        }
        return new QueueKey(q, part.part());
    }

    private static Optional<ParsedKey> queueNameRejection(String q) {
        return Names.queueNameProblem(q).map(problem -> q.equals(Names.RESERVED_QUEUE)
                ? reject(Rejection.RESERVED_QUEUE_NAME, problem)
                : reject(Rejection.BAD_QUEUE_NAME, problem));
    }

    private record ParsedPart(Part part, Rejected rejected) {
        static ParsedPart ok(Part part) {
            return new ParsedPart(part, null);
        }

        static ParsedPart no(Rejection rejection, String reason) {
            return new ParsedPart(null, new Rejected(rejection, reason));
        }
    }

    private static ParsedPart parseSuffix(String suffix) {
        Optional<StructureType> structure = StructureType.ofSuffix(suffix);
        if (structure.isPresent()) {
            return ParsedPart.ok(new Part.Structure(structure.get()));
        }
        if (suffix.startsWith("job:")) {
            return parseJob(suffix.substring(4));
        }
        if (suffix.startsWith("de:")) {
            String did = suffix.substring(3);
            return Names.isDedupId(did) ? ParsedPart.ok(new Part.Dedup(did))
                    : ParsedPart.no(Rejection.BAD_DEDUP_ID,
                            "dedup id '" + Names.printable(did) + "' must match [A-Za-z0-9._-]{1,255}");
        }
        if (suffix.startsWith("metrics:")) {
            return parseMetrics(suffix);
        }
        if (suffix.startsWith("g:")) {
            return parseGroup(suffix.substring(2));
        }
        if (suffix.startsWith("repeat:")) {
            String name = suffix.substring(7);
            return Names.isDedupId(name) ? ParsedPart.ok(new Part.Repeat(name)) : badName("repeat", name);
        }
        if (suffix.startsWith("stream:")) {
            String rest = suffix.substring(7);
            boolean archived = rest.endsWith(":archived");
            String name = archived ? rest.substring(0, rest.length() - 9) : rest;
            return Names.isDedupId(name) ? ParsedPart.ok(new Part.Stream(name, archived)) : badName("stream", name);
        }
        return ParsedPart.no(Rejection.UNKNOWN_TYPE, "unknown type '" + Names.printable(suffix) + "'");
    }

    private static ParsedPart badName(String what, String name) {
        return ParsedPart.no(Rejection.BAD_NAME,
                what + " name '" + Names.printable(name) + "' must match [A-Za-z0-9._-]{1,255}");
    }

    private static ParsedPart parseJob(String rest) {
        int colon = rest.indexOf(':');
        String idText = colon < 0 ? rest : rest.substring(0, colon);
        BrandedId.Parsed parsed = BrandedId.parse(idText);
        if (parsed instanceof BrandedId.Invalid invalid) {
            return ParsedPart.no(Rejection.BAD_JOB_ID, Names.printable(invalid.reason()));
        }
        BrandedId id = ((BrandedId.Valid) parsed).id();
        if (colon < 0) {
            return ParsedPart.ok(new Part.Job(id));
        }
        String sub = rest.substring(colon + 1);
        return JobSub.ofSuffix(sub)
                .map(s -> ParsedPart.ok(new Part.Job(id, Optional.of(s))))
                .orElseGet(() -> ParsedPart.no(Rejection.UNKNOWN_JOB_SUBKEY, "unknown job subkey '"
                        + Names.printable(sub) + "' (lock, logs, dependencies, processed, failed, unsuccessful)"));
    }

    private static ParsedPart parseMetrics(String suffix) {
        for (boolean failed : new boolean[] {false, true}) {
            for (boolean data : new boolean[] {false, true}) {
                Part.Metrics m = new Part.Metrics(failed, data);
                if (m.suffix().equals(suffix)) {
                    return ParsedPart.ok(m);
                }
            }
        }
        return ParsedPart.no(Rejection.UNKNOWN_TYPE,
                "unknown metrics key '" + Names.printable(suffix) + "' (metrics:completed|failed[:data])");
    }

    private static ParsedPart parseGroup(String rest) {
        if (!rest.endsWith(":pending")) {
            return ParsedPart.no(Rejection.UNKNOWN_TYPE, "a group key must be g:<group>:pending");
        }
        BrandedId.Parsed group = BrandedId.parse(rest.substring(0, rest.length() - 8));
        if (group instanceof BrandedId.Invalid invalid) {
            return ParsedPart.no(Rejection.BAD_GROUP_ID, "group: " + Names.printable(invalid.reason()));
        }
        return ParsedPart.ok(new Part.GroupPending(((BrandedId.Valid) group).id()));
    }

    private static Rejected reject(Rejection rejection, String reason) {
        return new Rejected(rejection, reason);
    }
}

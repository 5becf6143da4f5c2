package io.emq.migrate.v1;

import io.emq.migrate.keyspace.KeyGrammar;
import io.emq.migrate.keyspace.ParsedKey;
import io.emq.migrate.keyspace.Slots;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CheckedPipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * Finds the v1 queues under one or more prefixes. A queue exists when one of its evidence keys
 * ({@code meta}, {@code id}, {@code wait}, …) exists with the right type; ids and names may contain
 * {@code :}, so candidates come from matching known suffixes at the end of a key, never from
 * splitting it. A {@code meta} candidate that holds {@code data} is a job hash whose id ends in
 * {@code :meta}, not a queue. Reads only.
 */
public final class Discovery {
    /** The most one pass holds of keys (their bytes, and 8 bytes a key) while it waits to learn which queue owns them. */
    static final int MAX_HELD_BYTES = 32 << 20;
    private static final byte[] DATA = Bytes.utf8("data").raw();
    private static final List<Bytes> EVIDENCE_SUFFIXES = java.util.Arrays.stream(QueueStructure.values())
            .filter(QueueStructure::evidence).map(QueueStructure::colonSuffix).toList();
    private final UnifiedJedis jedis;
    private final int maxHeldBytes;
    private final boolean outsideToo;

    public Discovery(UnifiedJedis jedis) {
        this(jedis, MAX_HELD_BYTES, false);
    }

    /** A discovery that holds keys weighing at most {@code maxHeldBytes} before it falls back to a second pass. */
    Discovery(UnifiedJedis jedis, int maxHeldBytes) {
        this(jedis, maxHeldBytes, false);
    }

    private Discovery(UnifiedJedis jedis, int maxHeldBytes, boolean outsideToo) {
        this.jedis = jedis;
        this.maxHeldBytes = maxHeldBytes;
        this.outsideToo = outsideToo;
    }

    /**
     * This discovery, also naming the prefixes outside the given ones whose keys look like v1 queues (the same evidence,
     * {@link DiscoveryResult#otherPrefixes}): the first prefix's walk, which the server makes over the whole keyspace
     * anyway, hands every key over instead of those under the prefix only (more bytes on the wire where most keys lie
     * outside; no second walk). Not on a cluster whose first prefix names one slot by its hash tag (its walk is one
     * master's): none named there.
     */
    public Discovery outsideToo() {
        return new Discovery(jedis, maxHeldBytes, true);
    }

    public DiscoveryResult discover(List<String> prefixes) {
        return discover(prefixes, scanned -> { });
    }

    /**
     * As {@link #discover(List)}, telling {@code scanned} how many keys each SCAN page brought, so
     * each key under the prefixes is counted once. One pass finds the queues and the foreign keys: a
     * key no queue found so far owns is held until the pass ends, then judged against every queue.
     * Held keys share one {@link ByteArena}; when they weigh more than {@link #MAX_HELD_BYTES}, they are
     * dropped and a second pass (not reported) judges every key instead.
     */
    public DiscoveryResult discover(List<String> prefixes, LongConsumer scanned) {
        return pass(prefixes, scanned, false).result();
    }

    /**
     * As {@link #discover(List, LongConsumer)}, holding every key under the prefixes, not only those no
     * queue found so far owns, while they weigh at most {@link #MAX_HELD_BYTES} (then only those, as
     * discover does): each queue's keys as the pass met them ({@link HeldKeys}), so a dry run need not
     * scan the keyspace again; empty when they did not fit.
     */
    public Discovered discoverHoldingKeys(List<String> prefixes, LongConsumer scanned) {
        return pass(prefixes, scanned, true);
    }

    /** What a discovery found, and the keys of each queue its pass held (empty when they did not fit). */
    public record Discovered(DiscoveryResult result, Optional<KeySource<QueueRef>> keys) {
    }

    private Discovered pass(List<String> prefixes, LongConsumer scanned, boolean holdAll) {
        KeyspaceScanner scanner = new KeyspaceScanner(jedis).askingAhead();
        TreeSet<QueueRef> queues = new TreeSet<>();
        long[] underPrefixes = {0};
        Held held = new Held(holdAll, maxHeldBytes);
        QueueBases[] found = {new QueueBases(queues)};
        TreeSet<String> otherPrefixes = new TreeSet<>();
        for (String prefix : prefixes) {
            Bytes p = Bytes.utf8(prefix);
            Bytes start = p.concat(":");
            boolean outside = outsideToo && prefix.equals(prefixes.get(0)) && !(jedis instanceof RedisClusterClient && Slots.pins(start.raw()));
            scanUnder(scanner, prefixes, prefix, outside ? keys -> otherPrefixes.addAll(v1Prefixes(scanner, keys, otherPrefixes)) : null, (batch, own) -> {
                scanned.accept(batch.size());
                underPrefixes[0] += own.size();
                // only a key ending in an evidence suffix can be evidence: only those need a TYPE
                List<Bytes> candidates = new ArrayList<>();
                for (Bytes key : batch) {
                    if (evidenceCandidate(start, key)) {
                        candidates.add(key);
                    }
                }
                if (!candidates.isEmpty() && queues.addAll(evidence(p, scanner.typed(candidates)))) {
                    found[0] = new QueueBases(queues);
                }
                held.add(own, found[0]);
            });
        }
        keepOneRefABase(queues);
        QueueBases bases = new QueueBases(queues);
        List<Bytes> foreignSample = new ArrayList<>();
        long[] foreign = {0};
        Consumer<Bytes> judge = key -> {
            if (!owned(bases, key)) {
                foreign[0]++;
                if (foreignSample.size() < DiscoveryResult.SAMPLE) {
                    foreignSample.add(key);
                }
            }
        };
        Optional<KeySource<QueueRef>> keys = Optional.empty();
        if (held.keys == null) {
            for (String prefix : prefixes) {
                scanUnder(scanner, prefixes, prefix, null, (batch, own) -> own.forEach(judge));
            }
        } else if (held.all) {
            List<QueueRef> all = List.copyOf(queues);
            Map<QueueRef, Integer> index = new IdentityHashMap<>(); // owner() answers with these very refs
            for (int q = 0; q < all.size(); q++) {
                index.put(all.get(q), q);
            }
            int[] owner = new int[held.keys.size()];
            for (int i = 0; i < owner.length; i++) {
                Bytes key = held.keys.get(i);
                owner[i] = bases.owner(key).map(index::get).orElse(-1);
                if (owner[i] < 0) {
                    judge.accept(key);
                }
            }
            keys = Optional.of(new HeldKeys(held.keys, all, owner, bases));
        } else {
            for (int i = 0; i < held.keys.size(); i++) {
                judge.accept(held.keys.get(i));
            }
        }
        long total = jedis.dbSize();
        return new Discovered(new DiscoveryResult(List.copyOf(prefixes), List.copyOf(queues), underPrefixes[0], foreign[0],
                foreignSample, Math.max(0, total - underPrefixes[0]), List.copyOf(otherPrefixes)), keys);
    }

    /**
     * The keys a pass holds until it ends: every key ({@code all}) while they fit, then those no queue found
     * so far owns (a key a queue owns stays owned as more queues are found), none once even those do not fit.
     */
    private static final class Held {
        ByteArena keys = new ByteArena(1024); // null once overflowed
        boolean all;
        private final long maxBytes;

        Held(boolean all, long maxBytes) {
            this.all = all;
            this.maxBytes = maxBytes;
        }

        void add(List<Bytes> batch, QueueBases found) {
            if (keys == null) {
                return;
            }
            for (Bytes key : batch) {
                if (all || !owned(found, key)) {
                    keys.add(key.raw());
                }
            }
            if (all && tooMany()) {
                all = false;
                ByteArena unowned = new ByteArena(1024);
                for (int i = 0; i < keys.size(); i++) {
                    Bytes key = keys.get(i);
                    if (!owned(found, key)) {
                        unowned.add(key.raw());
                    }
                }
                keys = unowned;
            }
            if (tooMany()) {
                keys = null;
            }
        }

        /** Whether the held keys weigh more than the bound: their bytes, and an offset and an owner of 4 bytes each. */
        private boolean tooMany() {
            return keys.bytes() + 8L * keys.size() > maxBytes;
        }
    }

    /**
     * Scans the keys under {@code prefix}, handing each batch on ({@code into}) whole and without the keys under another of
     * the {@code prefixes} that lies under it ({@code bull:x} under {@code bull}), which that prefix's scan meets too: the
     * first for evidence (queue {@code x} of {@code bull} keeps its keys under {@code bull:x:}), the second to count and
     * hold each key once. With {@code outside} (else null), the walk hands over every key, and the keys under none of the
     * {@code prefixes} go there.
     */
    private static void scanUnder(KeyspaceScanner scanner, List<String> prefixes, String prefix, Consumer<List<Bytes>> outside,
                                  BiConsumer<List<Bytes>, List<Bytes>> into) {
        Bytes start = Bytes.utf8(prefix + ":");
        List<Bytes> nested = prefixes.stream().filter(other -> other.startsWith(prefix + ":")).map(other -> Bytes.utf8(other + ":")).toList();
        Consumer<List<Bytes>> under = batch -> into.accept(batch, nested.isEmpty() ? batch
                : batch.stream().filter(key -> nested.stream().noneMatch(key::startsWith)).toList());
        if (outside == null) {
            scanner.scanKeys(start, under);
            return;
        }
        List<Bytes> starts = prefixes.stream().map(other -> Bytes.utf8(other + ":")).toList();
        scanner.scanKeys(Bytes.utf8(""), batch -> {
            under.accept(batch.stream().filter(key -> key.startsWith(start)).toList());
            outside.accept(batch.stream().filter(key -> starts.stream().noneMatch(key::startsWith)).toList());
        });
    }

    /**
     * The prefixes ({@code P} of {@code P:NAME:SUFFIX}, NAME without a colon) under which these keys are evidence of a v1
     * queue as under a given prefix ({@link #evidence}), but for those {@code known} already and v2 keys (a v2 queue's
     * {@code meta} hash is no v1 queue's).
     */
    private List<String> v1Prefixes(KeyspaceScanner scanner, List<Bytes> keys, Set<String> known) {
        Map<Bytes, List<Bytes>> byPrefix = new HashMap<>();
        for (Bytes key : keys) {
            for (Bytes suffix : EVIDENCE_SUFFIXES) {
                if (!key.endsWith(suffix) || !(KeyGrammar.parse(key.raw()) instanceof ParsedKey.Rejected)) {
                    continue;
                }
                byte[] raw = key.raw();
                int colon = raw.length - suffix.length() - 1;
                while (colon > 0 && raw[colon] != ':') {
                    colon--;
                }
                if (colon > 0 && !known.contains(key.slice(0, colon).display())) {
                    byPrefix.computeIfAbsent(key.slice(0, colon), k -> new ArrayList<>()).add(key);
                }
            }
        }
        List<String> found = new ArrayList<>();
        byPrefix.forEach((prefix, candidates) -> {
            if (!evidence(prefix, scanner.typed(candidates)).isEmpty()) {
                found.add(prefix.display());
            }
        });
        return found;
    }

    /**
     * The prefixes but {@code given} under which a v1 queue named {@code name} lies (the evidence discovery asks under a
     * prefix), sorted: {@code PREFIX:NAME}, or a prefix the name itself begins with when it is given as {@code PREFIX:QUEUE}.
     * One walk of the whole keyspace matching {@code *NAME:[a-z]*} (a queue structure's key, not a numbered job's), for a
     * refusal of a name found under none of the given prefixes.
     */
    public List<String> prefixesOf(String name, List<String> given) {
        KeyspaceScanner scanner = new KeyspaceScanner(jedis);
        Bytes named = Bytes.utf8(name);
        List<Bytes> itsOwnPrefixes = new ArrayList<>(); // PREFIX:QUEUE: each part of the name before a colon
        for (int colon = name.indexOf(':'); colon > 0 && colon < name.length() - 1; colon = name.indexOf(':', colon + 1)) {
            itsOwnPrefixes.add(Bytes.utf8(name.substring(0, colon)));
        }
        Map<Bytes, List<Bytes>> byPrefix = new HashMap<>();
        scanner.scanMatching(Bytes.utf8("*").concat(KeyspaceScanner.glob(named)).concat(":[a-z]*"), batch -> {
            for (Bytes key : batch) {
                for (Bytes suffix : EVIDENCE_SUFFIXES) {
                    int end = key.length() - named.length() - suffix.length();
                    if (!key.endsWith(named.concat(suffix))) {
                        continue;
                    }
                    if (end == 0) {
                        itsOwnPrefixes.forEach(prefix -> byPrefix.computeIfAbsent(prefix, p -> new ArrayList<>()).add(key));
                    } else if (end > 1 && key.slice(end - 1, end).equals(Bytes.utf8(":"))) {
                        byPrefix.computeIfAbsent(key.slice(0, end - 1), prefix -> new ArrayList<>()).add(key);
                    }
                }
            }
        });
        TreeSet<String> found = new TreeSet<>();
        byPrefix.forEach((prefix, candidates) -> {
            if (!given.contains(prefix.display()) && !evidence(prefix, scanner.typed(candidates)).isEmpty()) {
                found.add(prefix.display());
            }
        });
        return List.copyOf(found);
    }

    /**
     * One queue a base: with {@code bull} and {@code bull:x} given, {@code bull:x:q:wait} is evidence of queue {@code x:q}
     * of {@code bull} and of queue {@code q} of {@code bull:x}, one queue, kept as the second (the longer prefix, the one
     * the operator named for it); a second ref would copy its jobs into a second v2 queue.
     */
    private static void keepOneRefABase(TreeSet<QueueRef> queues) {
        Map<Bytes, QueueRef> byBase = new HashMap<>();
        for (QueueRef q : queues) {
            byBase.merge(q.base(), q, (a, b) -> a.prefix().length() >= b.prefix().length() ? a : b);
        }
        queues.retainAll(new HashSet<>(byBase.values()));
    }

    private static boolean owned(QueueBases bases, Bytes key) {
        return bases.owner(key).isPresent() || bases.bareOwner(key).isPresent();
    }

    private static boolean evidenceCandidate(Bytes start, Bytes key) {
        for (Bytes suffix : EVIDENCE_SUFFIXES) {
            if (key.endsWith(suffix) && key.length() >= start.length() + suffix.length()) {
                return true;
            }
        }
        return false;
    }

    private List<QueueRef> evidence(Bytes prefix, List<ScannedKey> batch) {
        List<QueueRef> found = new ArrayList<>();
        List<QueueRef> metaCandidates = new ArrayList<>();
        Bytes start = prefix.concat(":");
        for (ScannedKey k : batch) {
            for (QueueStructure s : QueueStructure.values()) {
                Bytes suffix = s.colonSuffix();
                if (!s.evidence() || k.type() != s.type() || !k.key().endsWith(suffix)
                        || k.key().length() < start.length() + suffix.length()) {
                    continue;
                }
                QueueRef q = new QueueRef(prefix, k.key().slice(start.length(), k.key().length() - suffix.length()));
                (s == QueueStructure.META ? metaCandidates : found).add(q);
            }
        }
        found.addAll(withoutJobData(metaCandidates));
        return found;
    }

    private List<QueueRef> withoutJobData(List<QueueRef> metaCandidates) {
        if (metaCandidates.isEmpty()) {
            return List.of();
        }
        List<Response<Boolean>> hasData = new ArrayList<>();
        try (AbstractPipeline p = CheckedPipeline.of(jedis)) {
            for (QueueRef q : metaCandidates) {
                hasData.add(p.hexists(q.key(QueueStructure.META).raw(), DATA));
            }
            p.sync();
        }
        List<QueueRef> out = new ArrayList<>();
        for (int i = 0; i < metaCandidates.size(); i++) {
            if (!hasData.get(i).get()) {
                out.add(metaCandidates.get(i));
            }
        }
        return out;
    }
}

package io.emq.migrate.migrate;

import io.emq.migrate.keyspace.Base62;
import io.emq.migrate.keyspace.BrandedId;
import io.emq.migrate.wire.Wire;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that rows are members of the sets they must be listed in, for {@link Verifier}. Each set is
 * asked about its rows ({@code ZMSCORE}, one call a set and batch), except, when it {@code walks}, the
 * sets of every minted id ({@link #WALKED}: pending, schedule, dead; lanes are asked): the ranks of the
 * rows they must list are marked, and once every row is in, each is walked once by rank
 * ({@code ZRANGE ... WITHSCORES}, {@link #PAGE} a call), marking the ranks found; a row marked and not
 * found is then asked about ({@code ZMSCORE}: a walk of a set that changes under it may step over a
 * member). A walk costs the server a small part of asking about each member, but visits every member:
 * it is for checking (nearly) all of a set's rows, not a few. A row not listed is handed to
 * {@code missing} with its set, one listed at a score other than 0 to {@code scored}.
 */
final class Listings {
    /** Members a walk reads a call. */
    static final int PAGE = 5000;
    /** Members asked about a call. */
    private static final int ASKED = 500;

    private final Wire target;
    /** The sets walked rather than asked, by key; empty when nothing is walked. */
    private final Set<String> walked;
    private final MintedRanks minted;
    private final MissingRow missing;
    private final Scored scored;
    /** The ranks each walked set must list. */
    private final Map<String, BitSet> wanted = new HashMap<>();

    /** What to do with a row its set does not list. */
    interface MissingRow {
        void of(BrandedId id, String set);
    }

    /** What to do with a row its set lists at a score other than 0 (a set v2 scores 0 is the caller's to tell). */
    interface Scored {
        void of(BrandedId id, String set, double score);
    }

    /**
     * Checks the listings of rows of the journal whose ids are minted from {@code minted}; the sets in {@code walked} are walked at {@link #finish}, the others asked as rows come.
     */
    Listings(Wire target, Set<String> walked, MintedRanks minted, MissingRow missing, Scored scored) {
        this.target = target;
        this.walked = walked;
        this.minted = minted;
        this.missing = missing;
        this.scored = scored;
    }

    /** Checks that {@code set} lists these rows: asked now, or marked for the walk of a walked set. */
    void check(String set, List<BrandedId> ids) {
        BitSet want = walked.contains(set) ? wanted.computeIfAbsent(set, k -> new BitSet()) : null;
        List<BrandedId> ask = new ArrayList<>();
        for (BrandedId id : ids) {
            long rank = rank(id);
            if (want != null && rank > 0) {
                want.set(Math.toIntExact(rank));
            } else {
                ask.add(id);
            }
        }
        ask(set, ask);
    }

    /** Walks each walked set that must list rows, and asks about the marked rows a walk did not find. */
    void finish() {
        wanted.forEach((set, want) -> {
            BitSet found = new BitSet(want.length());
            byte[] key = Utf8.bytes(set);
            for (long from = 0; ; from += PAGE) {
                List<Map.Entry<byte[], Double>> page = target.zrangeWithScores(key, from, from + PAGE - 1);
                page.forEach(member -> {
                    long rank = rank(member.getKey());
                    if (rank > 0 && want.get(Math.toIntExact(rank))) {
                        found.set(Math.toIntExact(rank));
                        if (member.getValue() != 0) {
                            scored.of(minted.id(rank), set, member.getValue());
                        }
                    }
                });
                if (page.size() < PAGE) {
                    break;
                }
            }
            want.andNot(found);
            List<BrandedId> ask = new ArrayList<>();
            want.stream().forEach(rank -> {
                ask.add(minted.id(rank));
                if (ask.size() == ASKED) {
                    ask(set, ask);
                    ask.clear();
                }
            });
            ask(set, ask);
        });
        wanted.clear();
    }

    private void ask(String set, List<BrandedId> ids) {
        for (int from = 0; from < ids.size(); from += ASKED) {
            List<BrandedId> part = ids.subList(from, Math.min(ids.size(), from + ASKED));
            List<Double> scores = target.zmscore(Utf8.bytes(set), part.stream().map(id -> Utf8.bytes(id.toString())).toList());
            for (int j = 0; j < part.size(); j++) {
                if (scores.get(j) == null) {
                    missing.of(part.get(j), set);
                } else if (scores.get(j) != 0) {
                    scored.of(part.get(j), set, scores.get(j));
                }
            }
        }
    }

    /** The rank of a minted id of this journal ({@link MintedRanks}) that a bit set can mark, else 0. */
    private long rank(BrandedId id) {
        return marked(minted.rank(id));
    }

    /** {@link #rank(BrandedId)} of a member as read: a JOB id of 14 bytes, else 0. */
    private long rank(byte[] member) {
        if (member.length != BrandedId.LENGTH || member[0] != 'J' || member[1] != 'O' || member[2] != 'B') {
            return 0;
        }
        long value = 0;
        for (int i = 3; i < member.length; i++) {
            int d = Base62.digit((char) member[i]);
            if (d < 0 || value > (Long.MAX_VALUE - d) / 62) {
                return 0;
            }
            value = value * 62 + d;
        }
        return marked(minted.rank(value));
    }

    private static long marked(long rank) {
        return rank <= Integer.MAX_VALUE ? rank : 0;
    }
}

package io.emq.migrate.migrate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.emq.migrate.wire.Replies;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The history of one queue's journal: one row per applied step, {@code history:<version>} = the row as JSON. */
public final class StepHistory {
    static final String PREFIX = "history:";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Journal journal;

    StepHistory(Journal journal) {
        this.journal = journal;
    }

    public void record(HistoryRow row) {
        journal.set(Map.of(field(row), json(row)));
    }

    /** The journal field a row is recorded in. */
    static String field(HistoryRow row) {
        return PREFIX + row.version();
    }

    /** A row as recorded. */
    static String json(HistoryRow row) {
        try {
            return JSON.writeValueAsString(row);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public void forget(int version) {
        journal.forget(List.of(Utf8.bytes(PREFIX + version)));
    }

    /** The rows, by rank. */
    public List<HistoryRow> rows() {
        Map<String, String> byField = new HashMap<>(); // HSCAN may give a field twice
        journal.entriesStartingWith(PREFIX, page -> page.forEach(e -> byField.put(Replies.asText(e.getKey()), Replies.asText(e.getValue()))));
        List<HistoryRow> rows = new ArrayList<>();
        for (String v : byField.values()) {
            if (v.isEmpty()) {
                continue;
            }
            try {
                rows.add(JSON.readValue(v, HistoryRow.class));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("unreadable history row in " + journal.key() + ": " + v, e);
            }
        }
        rows.sort(Comparator.comparingInt(HistoryRow::rank));
        return rows;
    }
}

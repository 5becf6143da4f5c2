package io.emq.migrate.wire;

import redis.clients.jedis.exceptions.JedisDataException;

/** Maps a server error reply to the exception callers see; the same mapping for every attempt. */
final class WireErrors {

    private WireErrors() {
    }

    /** An {@code EMQ*} reply becomes its {@link EmqWireException} subtype; any other error is returned as is. */
    static RuntimeException map(JedisDataException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        if (!message.startsWith("EMQ")) {
            return e;
        }
        String word = message.split(" ", 2)[0];
        return switch (word) {
            case "EMQKIND" -> new EmqWireException.Kind(message);
            case "EMQSTALE" -> new EmqWireException.Stale(message);
            case "EMQRATE" -> new EmqWireException.Rate(message);
            case "EMQLOCK" -> new EmqWireException.Lock(message);
            case "EMQSTATE" -> new EmqWireException.State(message);
            default -> new EmqWireException.Protocol(message);
        };
    }
}

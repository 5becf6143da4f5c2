package io.emq.migrate.wire;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * A command's arguments as they already are: {@code first}, then {@code rest}, sent as given
 * ({@code Connection.sendCommand(CommandArguments)} writes what {@link #size} and {@link #iterator} give),
 * without the copy into a growing list, one wrapper an argument, that {@code sendCommand(command, byte[]...)}
 * makes. For a connection of its own only: it names no key, so a cluster client could not route it.
 */
public final class RawArguments extends CommandArguments {
    private final ProtocolCommand command;
    private final byte[] first;
    private final List<byte[]> rest;

    public RawArguments(ProtocolCommand command, byte[] first, List<byte[]> rest) {
        super(command);
        this.command = command;
        this.first = first;
        this.rest = rest;
    }

    @Override
    public int size() {
        return 2 + rest.size();
    }

    /**
     * The command, {@code first}, then each of {@code rest}. The one {@link Rawable} it hands out is
     * the iterator itself, holding the argument last returned: read it before the next.
     */
    @Override
    public Iterator<Rawable> iterator() {
        return new Cursor();
    }

    private final class Cursor implements Iterator<Rawable>, Rawable {
        private int next;
        private byte[] current;

        @Override
        public boolean hasNext() {
            return next < size();
        }

        @Override
        public Rawable next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            current = next == 0 ? command.getRaw() : next == 1 ? first : rest.get(next - 2);
            next++;
            return this;
        }

        @Override
        public byte[] getRaw() {
            return current;
        }
    }
}

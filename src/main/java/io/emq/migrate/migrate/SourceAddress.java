package io.emq.migrate.migrate;

import io.emq.migrate.wire.Endpoint;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a migration reads its v1 source, parsed from the text the journal records ({@code source}, an
 * {@link io.emq.migrate.wire.Endpoint#describe}): its hosts, database and whether it is a cluster. Two
 * addresses name the same server when they differ at most in the user or the scheme (a new ACL user, TLS
 * turned on): the same hosts and database; for a cluster, the same database and any seed in common (seeds are
 * any of its nodes, in any order).
 */
public record SourceAddress(Set<String> hosts, String database, boolean cluster) {
    public static SourceAddress of(String described) {
        boolean cluster = described.endsWith(Endpoint.CLUSTER_MARK);
        String rest = cluster ? described.substring(0, described.length() - Endpoint.CLUSTER_MARK.length()) : described;
        int scheme = rest.indexOf("://");
        rest = rest.substring(scheme < 0 ? 0 : scheme + 3);
        rest = rest.substring(rest.lastIndexOf('@') + 1);
        int slash = rest.indexOf('/');
        String database = slash < 0 ? "0" : rest.substring(slash + 1);
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        return new SourceAddress(new LinkedHashSet<>(List.of(hosts.split(","))), database, cluster);
    }

    public boolean sameServer(SourceAddress other) {
        return cluster == other.cluster && database.equals(other.database)
                && (cluster ? !Collections.disjoint(hosts, other.hosts) : hosts.equals(other.hosts));
    }
}

package io.emq.migrate.runtime;

import java.util.List;

/** The ids a flow tree was admitted under, in the shape of the tree. */
public record AdmittedFlow(String queue, String id, List<AdmittedFlow> children) {
}

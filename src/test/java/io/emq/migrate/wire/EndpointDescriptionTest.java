package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A server as a journal records it ({@link Endpoint#describe}) reads back as a URI of the same server. */
class EndpointDescriptionTest {
    @Test
    void aDescriptionReadsBackAsTheServerItDescribes() {
        for (String uri : List.of("redis://127.0.0.1:6379", "rediss://ops@10.0.0.5:6380/2", "redis+cluster://10.0.0.1:7000,10.0.0.2:7001",
                "rediss+cluster://ops@10.0.0.1:7000/0")) {
            Endpoint endpoint = Endpoint.parse(uri, "", name -> null);
            Endpoint readBack = Endpoint.parse(Endpoint.uriOf(endpoint.describe()), "", name -> null);
            assertEquals(endpoint.describe(), readBack.describe(), uri);
            assertEquals(endpoint.cluster(), readBack.cluster(), uri);
        }
    }
}

package io.emq.migrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.server.LocalServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real TLS server (the server binary's {@code --tls-port}) whose certificate a private CA signed,
 * with certificates made here by {@code openssl}: trusted through --*-cacert, EMQ_*_CACERT or the
 * config file; client certificates where the server requires them; errors that say how to trust.
 */
class TlsTest {
    @TempDir
    static Path dir;

    private static void openssl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl " + cmd + ": "
                + Files.readString(dir.resolve("openssl.log")));
    }

    /** A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA. */
    private static void certificates() throws Exception {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=emq test CA");
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        for (String who : List.of("server", "client")) {
            openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", who + ".key", "-out", who + ".csr", "-subj",
                    "/CN=" + who);
            openssl("x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                    "-out", who + ".pem", "-days", "2", "-extfile", "san.ext");
        }
        openssl("pkcs8", "-topk8", "-nocrypt", "-in", "client.key", "-out", "client.pk8");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static LocalServer tlsServer(int tlsPort, String authClients) {
        return LocalServer.start(LocalServer.requireBinary(), List.of("--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", dir.resolve("server.pem").toString(), "--tls-key-file", dir.resolve("server.key").toString(),
                "--tls-ca-cert-file", dir.resolve("ca.pem").toString(), "--tls-auth-clients", authClients));
    }

    @Test
    void aPrivateCaIsTrustedOnlyWhenGivenAndClientCertificatesAreSent() throws Exception {
        certificates();
        int port = freePort();
        try (LocalServer server = tlsServer(port, "no")) {
            String uri = "rediss://127.0.0.1:" + port;
            CliRun untrusted = CliRun.of("discover", "--source", uri);
            assertEquals(ExitCodes.USAGE, untrusted.code(), untrusted.all());
            assertTrue(untrusted.err().contains("presented a TLS certificate this JVM does not trust")
                    && untrusted.err().contains("--source-cacert FILE"), untrusted.err());

            openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days", "2",
                    "-subj", "/CN=another CA");
            CliRun wrongCa = CliRun.of("discover", "--source", uri, "--source-cacert", dir.resolve("other.pem").toString());
            assertEquals(ExitCodes.USAGE, wrongCa.code(), wrongCa.all());
            assertTrue(wrongCa.err().contains("presented a TLS certificate that the CA given (" + dir.resolve("other.pem")
                    + ") did not sign") && !wrongCa.err().contains("with --source-cacert FILE"), wrongCa.err());

            CliRun trusted = CliRun.of("discover", "--source", uri, "--source-cacert", dir.resolve("ca.pem").toString());
            assertEquals(0, trusted.code(), trusted.all());
            assertTrue(trusted.out().contains("no v1 queues under prefix bull on rediss://"), trusted.out());

            CliRun fromEnv = CliRun.in(new Environment(Map.of("EMQ_TARGET", uri, "EMQ_TARGET_CACERT", "ca.pem"), dir,
                    false, false), "info");
            assertEquals(0, fromEnv.code(), fromEnv.all());
            Files.writeString(dir.resolve("emq-migrate.conf"), "target=" + uri + "\ntarget.cacert=ca.pem\n");
            CliRun fromFile = CliRun.in(new Environment(Map.of(), dir, false, false), "conformance");
            assertEquals(0, fromFile.code(), fromFile.all());
            Files.delete(dir.resolve("emq-migrate.conf"));

            CliRun notTls = CliRun.of("discover", "--source", "redis://127.0.0.1:" + port);
            assertEquals(ExitCodes.USAGE, notTls.code(), notTls.all());
            assertTrue(notTls.err().contains("rediss://"), notTls.err());
            CliRun plainWithCa = CliRun.of("discover", "--source", "redis://127.0.0.1:" + port, "--source-cacert", "ca.pem");
            assertEquals(ExitCodes.USAGE, plainWithCa.code());
            assertTrue(plainWithCa.err().contains("not a TLS URI"), plainWithCa.err());
            CliRun noFile = CliRun.of("discover", "--source", uri, "--source-cacert", "/no/such/ca.pem");
            assertEquals(ExitCodes.USAGE, noFile.code());
            assertTrue(noFile.err().contains("no certificate file /no/such/ca.pem"), noFile.err());
        }
        int mutual = freePort();
        try (LocalServer server = tlsServer(mutual, "yes")) {
            String uri = "rediss://127.0.0.1:" + mutual;
            String ca = dir.resolve("ca.pem").toString();
            CliRun without = CliRun.of("discover", "--source", uri, "--source-cacert", ca);
            assertEquals(ExitCodes.USAGE, without.code(), without.all());
            assertTrue(without.err().contains("requires a client certificate does: give it with --source-cert FILE"),
                    without.err());
            CliRun with = CliRun.of("discover", "--source", uri, "--source-cacert", ca,
                    "--source-cert", dir.resolve("client.pem").toString(), "--source-key", dir.resolve("client.pk8").toString());
            assertEquals(0, with.code(), with.all());
            CliRun pkcs1 = CliRun.of("discover", "--source", uri, "--source-cacert", ca,
                    "--source-cert", dir.resolve("client.pem").toString(), "--source-key", dir.resolve("ca.pem").toString());
            assertEquals(ExitCodes.USAGE, pkcs1.code());
            assertTrue(pkcs1.err().contains("openssl pkcs8 -topk8 -nocrypt"), pkcs1.err());
        }
    }
}

package io.emq.migrate.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Optional;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;

/**
 * PEM files for a TLS server the JVM does not trust by default: the CA that signed the server's
 * certificate, and a client certificate with its PKCS#8 key for servers that require one. Absent
 * parts fall back to the JVM's defaults (its trust store; no client certificate).
 */
public record TlsFiles(Optional<Path> caCert, Optional<Path> cert, Optional<Path> key) {
    public static final TlsFiles NONE = new TlsFiles(Optional.empty(), Optional.empty(), Optional.empty());
    private static final String STORE_TYPE = "PKCS12";
    private static final char[] STORE_PASSWORD = "emq-migrate".toCharArray();

    public TlsFiles {
        if (cert.isPresent() != key.isPresent()) {
            throw new Endpoint.BadEndpointException("a client certificate needs both its certificate and its key file");
        }
    }

    /**
     * What Jedis applies to the TLS connection: the server's certificate verified up to {@link #caCert}
     * (else the JVM's trust store) and naming the host connected to; {@link #cert} presented when given.
     */
    SslOptions sslOptions() {
        SslOptions.Builder options = SslOptions.builder().sslVerifyMode(SslVerifyMode.FULL);
        try {
            if (caCert.isPresent()) {
                KeyStore store = emptyStore();
                int i = 0;
                for (Certificate c : certificates(caCert.get())) {
                    store.setCertificateEntry("ca" + i++, c);
                }
                byte[] bytes = bytes(store);
                options.trustStoreType(STORE_TYPE).truststore(() -> new ByteArrayInputStream(bytes), STORE_PASSWORD);
            }
            if (cert.isPresent()) {
                KeyStore store = emptyStore();
                store.setKeyEntry("client", privateKey(key.get()), STORE_PASSWORD,
                        certificates(cert.get()).toArray(new Certificate[0]));
                byte[] bytes = bytes(store);
                options.keyStoreType(STORE_TYPE).keystore(() -> new ByteArrayInputStream(bytes), STORE_PASSWORD);
            }
        } catch (GeneralSecurityException | IOException e) {
            throw new Endpoint.BadEndpointException("cannot use the TLS files: " + e.getMessage());
        }
        return options.build();
    }

    private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(STORE_TYPE);
        store.load(null, null);
        return store;
    }

    /** The store as Jedis reads it (an in-memory PKCS#12 file; its password protects nothing on disk). */
    private static byte[] bytes(KeyStore store) throws GeneralSecurityException, IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.store(out, STORE_PASSWORD);
        return out.toByteArray();
    }

    private static Collection<? extends Certificate> certificates(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> found = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (found.isEmpty()) {
                throw new Endpoint.BadEndpointException(file + " holds no PEM certificate");
            }
            return found;
        } catch (NoSuchFileException e) {
            throw new Endpoint.BadEndpointException("no certificate file " + file);
        } catch (IOException | GeneralSecurityException e) {
            throw new Endpoint.BadEndpointException(file + " is not a PEM certificate: " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(Path file) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            throw new Endpoint.BadEndpointException("no key file " + file);
        } catch (IOException e) {
            throw new Endpoint.BadEndpointException("cannot read the key file " + file + ": " + e.getMessage());
        }
        if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new Endpoint.BadEndpointException("the key file " + file + " is not an unencrypted PKCS#8 PEM key;"
                    + " convert it with: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out client.pk8.pem");
        }
        String base64 = pem.substring(pem.indexOf("-----BEGIN PRIVATE KEY-----") + 27, pem.indexOf("-----END PRIVATE KEY-----"))
                .replaceAll("\\s", "");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64));
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // the next algorithm
            }
        }
        throw new Endpoint.BadEndpointException("the key in " + file + " is neither RSA, EC nor Ed25519");
    }
}

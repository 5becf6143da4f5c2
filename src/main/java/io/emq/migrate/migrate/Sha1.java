package io.emq.migrate.migrate;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** One SHA-1 digester per thread, looked up once: the copy digests every v1 job it reads, verification every row's payload. */
final class Sha1 {
    private static final ThreadLocal<MessageDigest> DIGESTER = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    });

    private Sha1() {
    }

    /** This thread's digester, reset (a use cut short by a failure leaves nothing behind). */
    static MessageDigest digester() {
        MessageDigest sha1 = DIGESTER.get();
        sha1.reset();
        return sha1;
    }
}

package io.emq.migrate.v1;

/**
 * The one size of the chunks that per-job arrays are held in: an array of 256 KiB with its header, four to a G1
 * region of 1 MiB, so none is a humongous object at a heap of 512 MiB.
 */
public final class HeapChunks {
    /** The bytes a chunk's array spans with its header. */
    public static final int SPAN = 1 << 18;
    /** The bytes an array's header takes. */
    public static final int HEADER = 16;
    /** The most bytes of data a chunk holds. */
    public static final int BYTES = SPAN - HEADER;

    private HeapChunks() {
    }

    /** The most elements of {@code elementBytes} bytes a chunk holds. */
    public static int of(int elementBytes) {
        return BYTES / elementBytes;
    }
}

package io.awareactive.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * What the data directory's file system charges to release bytes: the time of {@code ftruncate(2)} to zero of one
 * file of that size, written and synced just before beside the data directory. A prune's {@code COMMIT} does this to
 * every file its {@code TRUNCATE} replaced (PostgreSQL truncates a dropped relation's first segment to zero at commit
 * and unlinks it after the next checkpoint), so for a slot of that size it is a floor under the reclaim that no SQL can
 * lower.
 */
final class FileRelease {

    private static final int CHUNK = 1 << 20;

    private FileRelease() {
    }

    /**
     * Writes, syncs and truncates to zero one file of {@code bytes} bytes in the parent of a local data directory,
     * when that parent is a writable directory on the data directory's file system, and removes it.
     *
     * @param dataDirectory the server's {@code data_directory}, or {@code null} when it is unknown
     * @param bytes the file's size
     * @return the truncate's time in milliseconds, or NaN when there is no such directory or the probe failed
     */
    static double millis(@Nullable String dataDirectory, long bytes) {
        if (dataDirectory == null || dataDirectory.isEmpty() || bytes < 0) {
            return Double.NaN;
        }
        Path data = Path.of(dataDirectory);
        Path parent = data.toAbsolutePath().getParent();
        try {
            if (parent == null || !Files.isDirectory(data) || !Files.isWritable(parent)
                    || !Files.getFileStore(parent).equals(Files.getFileStore(data))) {
                return Double.NaN;
            }
            Path file = Files.createTempFile(parent, "file-release-", ".probe");
            try {
                return truncateMillis(file, bytes);
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    private static double truncateMillis(Path file, long bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            byte[] pattern = new byte[CHUNK];
            Arrays.fill(pattern, (byte) 'x');
            ByteBuffer chunk = ByteBuffer.wrap(pattern);
            for (long written = 0; written < bytes; written += chunk.limit()) {
                chunk.clear().limit((int) Math.min(CHUNK, bytes - written));
                while (chunk.hasRemaining()) {
                    channel.write(chunk);
                }
            }
            channel.force(true);
            long started = System.nanoTime();
            channel.truncate(0);
            return (System.nanoTime() - started) / 1e6;
        }
    }
}

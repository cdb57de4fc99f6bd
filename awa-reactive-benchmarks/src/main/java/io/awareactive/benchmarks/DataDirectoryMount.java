package io.awareactive.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The file system that holds the server's data directory, as {@code /proc/self/mounts} describes it. A prune's
 * {@code COMMIT} frees the truncated files' blocks, and on a file system mounted with {@code discard} each freed
 * extent becomes a discard request to the device, which the prune waits for: reclaim time depends on the mount
 * options, so every run records them.
 */
final class DataDirectoryMount {

    private static final Path MOUNTS = Path.of("/proc/self/mounts");

    private DataDirectoryMount() {
    }

    /**
     * Describes the mount of a local data directory.
     *
     * @param dataDirectory the server's {@code data_directory}, or {@code null} when the session may not read it
     * @return {@code "<type> on <mount point> (<options>)"}, or why it is unknown
     */
    static String describe(@Nullable String dataDirectory) {
        if (dataDirectory == null || dataDirectory.isEmpty()) {
            return "unknown (data_directory not readable)";
        }
        Path directory = Path.of(dataDirectory);
        if (!Files.isDirectory(directory)) {
            return "unknown (data directory " + dataDirectory + " is not on this machine)";
        }
        try {
            return describe(directory.toRealPath().toString(), Files.readString(MOUNTS));
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /**
     * Finds the mount of a path in a mount table: the entry whose mount point is the longest prefix of the path (the
     * last such entry wins, as a later mount hides an earlier one on the same point).
     *
     * @param realPath an absolute path without symbolic links
     * @param mounts the text of {@code /proc/self/mounts}: device, mount point, type, options, ... per line
     * @return {@code "<type> on <mount point> (<options>)"}, or {@code "unknown (...)"} when no entry holds the path
     */
    static String describe(String realPath, String mounts) {
        String best = null;
        int bestLength = -1;
        for (String line : mounts.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 4) {
                continue;
            }
            // /proc/self/mounts escapes a space in a mount point as \040.
            String point = fields[1].replace("\\040", " ");
            if (holds(point, realPath) && point.length() >= bestLength) {
                best = fields[2] + " on " + point + " (" + fields[3] + ")";
                bestLength = point.length();
            }
        }
        return best != null ? best : "unknown (no mount holds " + realPath + ")";
    }

    private static boolean holds(String mountPoint, String path) {
        String directory = mountPoint.endsWith("/") ? mountPoint : mountPoint + "/";
        return path.equals(mountPoint) || path.startsWith(directory);
    }
}

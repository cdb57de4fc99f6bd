package io.awareactive.benchmarks;

/**
 * Cumulative counters of the work a system makes the server do: WAL bytes written (server-wide), rows written in the
 * system's schema (inserted + updated + deleted tuples of its tables), and transactions committed (in the benchmark
 * database). Read at the start and the end of a measured window; their difference, divided by the jobs completed in
 * that window, is the cost per job. The systems run one after the other on the same server, so everything in a window
 * is caused by the system under test, its maintenance included (plus the sampler's one read per interval and
 * autovacuum).
 *
 * @param walBytes {@code pg_stat_wal.wal_bytes}, or {@code pg_current_wal_lsn()} in bytes without pg_stat_wal
 * @param rowsWritten {@code n_tup_ins + n_tup_upd + n_tup_del} summed over {@code pg_stat_user_tables} of the schema
 * @param commits {@code pg_stat_database.xact_commit} of the benchmark database
 */
record DatabaseWork(long walBytes, long rowsWritten, long commits) {

    /** The work done between {@code earlier} and this reading. */
    DatabaseWork minus(DatabaseWork earlier) {
        return new DatabaseWork(walBytes - earlier.walBytes, rowsWritten - earlier.rowsWritten,
                commits - earlier.commits);
    }

    /** WAL bytes per completed job; NaN when no job completed. */
    double walBytesPerJob(long jobs) {
        return perJob(walBytes, jobs);
    }

    /** Rows written per completed job; NaN when no job completed. */
    double rowsPerJob(long jobs) {
        return perJob(rowsWritten, jobs);
    }

    /** Commits per completed job; NaN when no job completed. */
    double commitsPerJob(long jobs) {
        return perJob(commits, jobs);
    }

    /** {@code amount / jobs}, NaN when {@code jobs} is not positive. */
    static double perJob(long amount, long jobs) {
        return jobs <= 0 ? Double.NaN : (double) amount / jobs;
    }
}

package io.awareactive.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class DatabaseWorkUnitTests {

    @Test
    void shouldSubtractAnEarlierReading() {
        DatabaseWork work = new DatabaseWork(10_000, 50, 7).minus(new DatabaseWork(4_000, 20, 2));

        assertThat(work).isEqualTo(new DatabaseWork(6_000, 30, 5));
    }

    @Test
    void shouldDivideEachCounterByTheJobsCompleted() {
        DatabaseWork work = new DatabaseWork(6_000, 30, 5);

        assertThat(work.walBytesPerJob(20)).isEqualTo(300);
        assertThat(work.rowsPerJob(20)).isEqualTo(1.5);
        assertThat(work.commitsPerJob(20)).isEqualTo(0.25);
    }

    @Test
    void shouldGiveNoFigurePerJobWhenNoJobCompleted() {
        DatabaseWork work = new DatabaseWork(6_000, 30, 5);

        assertThat(work.walBytesPerJob(0)).isNaN();
        assertThat(work.rowsPerJob(0)).isNaN();
        assertThat(DatabaseWork.perJob(5, -1)).isNaN();
    }
}

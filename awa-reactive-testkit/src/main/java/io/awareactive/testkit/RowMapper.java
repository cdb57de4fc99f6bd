package io.awareactive.testkit;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Maps the current row of a JDBC {@link ResultSet} to a value, for {@link TestDatabase#query}.
 *
 * @param <T> the type of the mapped value
 */
@FunctionalInterface
public interface RowMapper<T> {

    /**
     * Maps the row the result set is positioned on. Implementations must not move the cursor.
     *
     * @param rs the result set, positioned on a row
     * @return the mapped value
     * @throws SQLException if reading a column fails
     */
    T map(ResultSet rs) throws SQLException;
}

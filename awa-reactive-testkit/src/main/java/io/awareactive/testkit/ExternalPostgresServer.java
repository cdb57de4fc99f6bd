package io.awareactive.testkit;

import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.ConnectionFactoryOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** A server the testkit did not start, given by an R2DBC URL. {@link #close()} does nothing. */
final class ExternalPostgresServer extends AbstractPostgresServer {

    static final String URL_RULE = "r2dbc:postgresql://user[:password]@host[:port]/database[?option=value&...]"
            + " (user, password and database URL-encoded)";

    private static final String PLAIN_SCHEME = "r2dbc:postgresql://";
    private static final String SSL_SCHEME = "r2dbcs:postgresql://";
    private static final int DEFAULT_PORT = 5432;

    private final String scheme;
    private final String host;
    private final int port;
    private final String username;
    private final String password;
    private final String database;
    private final String query;

    private ExternalPostgresServer(String scheme, String host, int port, String username, String password,
            String database, String query) {
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.username = username;
        this.password = password;
        this.database = database;
        this.query = query;
    }

    /** Parses and validates {@code url}; see {@link #URL_RULE}. */
    static ExternalPostgresServer parse(String url) {
        if (url == null || url.isBlank()) {
            throw invalid(String.valueOf(url), "the URL is empty");
        }
        String trimmed = url.trim();
        String scheme;
        if (trimmed.startsWith(PLAIN_SCHEME)) {
            scheme = PLAIN_SCHEME;
        } else if (trimmed.startsWith(SSL_SCHEME)) {
            scheme = SSL_SCHEME;
        } else {
            throw invalid(trimmed, "it must start with " + PLAIN_SCHEME + " (or " + SSL_SCHEME
                    + "); pooled or other drivers' URLs are not accepted");
        }
        String rest = trimmed.substring(scheme.length());
        String query = "";
        int questionMark = rest.indexOf('?');
        if (questionMark >= 0) {
            query = rest.substring(questionMark + 1);
            rest = rest.substring(0, questionMark);
        }
        int slash = rest.indexOf('/');
        if (slash < 0) {
            throw invalid(trimmed, "the database is missing");
        }
        String authority = rest.substring(0, slash);
        String rawDatabase = rest.substring(slash + 1);
        int at = authority.lastIndexOf('@');
        if (at < 0) {
            throw invalid(trimmed, "the user is missing");
        }
        String userInfo = authority.substring(0, at);
        String hostPort = authority.substring(at + 1);
        int colon = userInfo.indexOf(':');
        String username = decode(trimmed, colon < 0 ? userInfo : userInfo.substring(0, colon));
        String password = colon < 0 ? "" : decode(trimmed, userInfo.substring(colon + 1));
        if (username.isEmpty()) {
            throw invalid(trimmed, "the user is missing");
        }
        String host;
        String portText;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw invalid(trimmed, "the IPv6 host is not closed with ']'");
            }
            host = hostPort.substring(1, close);
            String afterHost = hostPort.substring(close + 1);
            if (!afterHost.isEmpty() && !afterHost.startsWith(":")) {
                throw invalid(trimmed, "unexpected text after the host");
            }
            portText = afterHost.isEmpty() ? "" : afterHost.substring(1);
        } else {
            int portColon = hostPort.lastIndexOf(':');
            host = portColon < 0 ? hostPort : hostPort.substring(0, portColon);
            portText = portColon < 0 ? "" : hostPort.substring(portColon + 1);
            if (host.indexOf(',') >= 0) {
                throw invalid(trimmed, "several hosts are not supported");
            }
        }
        if (host.isEmpty()) {
            throw invalid(trimmed, "the host is missing");
        }
        int port = DEFAULT_PORT;
        if (!portText.isEmpty()) {
            try {
                port = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                throw invalid(trimmed, "the port '" + portText + "' is not a number");
            }
            if (port < 1 || port > 65535) {
                throw invalid(trimmed, "the port " + port + " is outside 1..65535");
            }
        }
        if (rawDatabase.isEmpty()) {
            throw invalid(trimmed, "the database is missing");
        }
        if (rawDatabase.indexOf('/') >= 0) {
            throw invalid(trimmed, "the database name must not contain '/'");
        }
        String database = decode(trimmed, rawDatabase);
        ExternalPostgresServer server = new ExternalPostgresServer(scheme, host, port, username, password, database,
                query);
        try {
            // Let r2dbc-spi and the driver check the options too, so that a bad option fails here.
            PostgresqlConnectionFactoryProvider.builder(ConnectionFactoryOptions.parse(server.r2dbcUrl(database)));
        } catch (RuntimeException e) {
            throw invalid(trimmed, "the driver rejects it: " + e.getMessage());
        }
        return server;
    }

    private static String decode(String url, String value) {
        try {
            return URLDecoder.decode(value, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw invalid(url, "bad URL encoding in '" + mask(value) + "'");
        }
    }

    private static IllegalArgumentException invalid(String url, String problem) {
        return new IllegalArgumentException("Invalid PostgreSQL R2DBC URL '" + mask(url) + "': " + problem
                + ". Expected " + URL_RULE);
    }

    /** Hides the password of a URL (for messages). */
    static String mask(String url) {
        int schemeEnd = url.indexOf("://");
        int start = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int slash = url.indexOf('/', start);
        int end = slash < 0 ? url.length() : slash;
        int at = url.lastIndexOf('@', end);
        if (at < start) {
            return url;
        }
        int colon = url.indexOf(':', start);
        if (colon < 0 || colon > at) {
            return url;
        }
        return url.substring(0, colon + 1) + "***" + url.substring(at);
    }

    @Override
    PostgresqlConnectionConfiguration.Builder coordinates(String database) {
        return PostgresqlConnectionFactoryProvider.builder(ConnectionFactoryOptions.parse(r2dbcUrl(database)));
    }

    @Override
    String r2dbcScheme() {
        return scheme;
    }

    @Override
    String r2dbcQuery() {
        return query;
    }

    @Override
    String extraJdbcParameters() {
        String sslMode = scheme.equals(SSL_SCHEME) ? "require" : null;
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equalsIgnoreCase("sslMode")) {
                sslMode = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8)
                        .toLowerCase(Locale.ROOT).replace('_', '-');
            }
        }
        return sslMode == null ? "" : "&sslmode=" + encode(sslMode);
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String username() {
        return username;
    }

    @Override
    public String password() {
        return password;
    }

    @Override
    public String database() {
        return database;
    }

    @Override
    public void close() {
        // Not ours to stop.
    }
}

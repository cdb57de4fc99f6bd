package io.awareactive.examples.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves the Prometheus scrape text of a registry over HTTP ({@code GET /metrics}) with the JDK's built-in server, so
 * that {@code curl http://localhost:PORT/metrics} works while the demo runs.
 */
final class MetricsHttpServer implements AutoCloseable {

    static final String PATH = "/metrics";

    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicLong scrapes = new AtomicLong();

    private MetricsHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts serving on localhost.
     *
     * @param registry the registry to scrape
     * @param port the port, 0 for any free port
     * @return the running server
     * @throws DemoException when the port cannot be bound
     */
    static MetricsHttpServer start(PrometheusMeterRegistry registry, int port) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        } catch (BindException e) {
            throw new DemoException("cannot serve metrics on port " + port + " (" + e.getMessage()
                    + "): choose another with --metrics-port, or 0 for any free port");
        } catch (IOException e) {
            throw new DemoException("cannot serve metrics on port " + port + ": " + e.getMessage());
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "awa-demo-metrics-http");
            thread.setDaemon(true);
            return thread;
        });
        MetricsHttpServer metrics = new MetricsHttpServer(server, executor);
        server.createContext("/", exchange -> metrics.handle(exchange, registry));
        server.setExecutor(executor);
        server.start();
        return metrics;
    }

    private void handle(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals(PATH)) {
                respond(exchange, 404, "text/plain; charset=utf-8", "Not found: the metrics are at " + PATH + "\n");
                return;
            }
            if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                respond(exchange, 405, "text/plain; charset=utf-8", "Use GET\n");
                return;
            }
            scrapes.incrementAndGet();
            respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The port actually bound. */
    int port() {
        return server.getAddress().getPort();
    }

    /** The scrape URL. */
    String url() {
        return "http://localhost:" + port() + PATH;
    }

    /** How many scrapes were answered. */
    long scrapes() {
        return scrapes.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

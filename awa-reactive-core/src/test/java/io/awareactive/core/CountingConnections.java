package io.awareactive.core;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/** A connection factory that records the SQL of every statement its connections create and counts transactions. */
final class CountingConnections implements ConnectionFactory {

    private final ConnectionFactory delegate;
    private final List<String> statements;
    private final AtomicInteger transactions;

    private CountingConnections(ConnectionFactory delegate, List<String> statements, AtomicInteger transactions) {
        this.delegate = delegate;
        this.statements = statements;
        this.transactions = transactions;
    }

    static ConnectionFactory of(ConnectionFactory delegate, List<String> statements, AtomicInteger transactions) {
        return new CountingConnections(delegate, statements, transactions);
    }

    @Override
    public Publisher<? extends Connection> create() {
        return Mono.from(delegate.create()).map(this::counting);
    }

    @Override
    public ConnectionFactoryMetadata getMetadata() {
        return delegate.getMetadata();
    }

    private Connection counting(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("createStatement")) {
                        statements.add((String) args[0]);
                    } else if (method.getName().equals("beginTransaction")) {
                        transactions.incrementAndGet();
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}

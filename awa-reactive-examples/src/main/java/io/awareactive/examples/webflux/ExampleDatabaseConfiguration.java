package io.awareactive.examples.webflux;

import io.awareactive.testkit.PostgresProviders;
import io.awareactive.testkit.PostgresServer;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A convenience of the example, not something a service needs: when {@code spring.r2dbc.url} is empty, the example
 * starts an embedded PostgreSQL for itself and offers its pooled connection factory, which Spring Boot's R2DBC
 * auto-configuration then backs off for and the awa-reactive starter uses. A real service sets
 * {@code spring.r2dbc.url}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${spring.r2dbc.url:}'.isBlank()")
class ExampleDatabaseConfiguration {

    @Bean(destroyMethod = "close")
    PostgresServer exampleDatabase() {
        return PostgresProviders.embedded();
    }

    @Bean(destroyMethod = "dispose")
    ConnectionPool exampleConnectionPool(PostgresServer server) {
        return new ConnectionPool(ConnectionPoolConfiguration
                .builder(ConnectionFactories.get(server.r2dbcUrl(server.database())))
                .maxSize(10)
                .maxAcquireTime(Duration.ofSeconds(10))
                .customizer(idle -> idle.idleResourceReuseMruOrder())  // warm connections first: see operations.md
                .build());
    }
}

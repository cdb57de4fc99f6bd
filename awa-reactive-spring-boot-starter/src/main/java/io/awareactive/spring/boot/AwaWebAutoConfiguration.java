package io.awareactive.spring.boot;

import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.spring.boot.internal.OutcomeStream;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The optional prune-outcome stream of a reactive web application: with {@code awa.web.outcomes-enabled=true},
 * {@code GET awa.web.outcomes-path} (default {@code /awa/outcomes}) answers {@code text/event-stream}, one event per
 * prune outcome from the request on, named after the outcome ({@code pruned}, {@code blocked}, ...), its data a
 * {@link PruneOutcomeView}. Events may carry blockers' SQL text: keep the path internal or secure it. Backs off when
 * the application defines a bean named {@code awaOutcomesRoute}.
 */
@AutoConfiguration(after = AwaAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty("awa.web.outcomes-enabled")
@ConditionalOnBean(RingMaintenance.class)
public class AwaWebAutoConfiguration {

    /** Created by Spring from the auto-configuration imports. */
    public AwaWebAutoConfiguration() {
    }

    /**
     * The route of the stream.
     *
     * @param maintenance the engine
     * @param properties {@code awa.web.outcomes-path}
     * @return the route
     */
    @Bean
    @ConditionalOnMissingBean(name = "awaOutcomesRoute")
    public RouterFunction<ServerResponse> awaOutcomesRoute(RingMaintenance maintenance, AwaProperties properties) {
        return OutcomeStream.route(properties.getWeb().getOutcomesPath(), maintenance);
    }
}

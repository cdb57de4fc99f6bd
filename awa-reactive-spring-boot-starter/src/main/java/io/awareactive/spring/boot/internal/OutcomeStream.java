package io.awareactive.spring.boot.internal;

import io.awareactive.maintenance.RingMaintenance;
import io.awareactive.spring.boot.PruneOutcomeView;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;

/** The prune-outcome stream: a WebFlux route answering server-sent events, one per outcome, named after it. */
public final class OutcomeStream {

    private OutcomeStream() {
    }

    /**
     * A {@code GET path} route streaming every prune outcome from the request on, until the client leaves or
     * maintenance stops.
     *
     * @param path the request path
     * @param maintenance the engine
     * @return the route
     */
    public static RouterFunction<ServerResponse> route(String path, RingMaintenance maintenance) {
        return RouterFunctions.route(RequestPredicates.GET(path), request -> {
            Flux<ServerSentEvent<PruneOutcomeView>> events = maintenance.outcomes()
                    .map(event -> ServerSentEvent.builder(PruneOutcomeView.of(event))
                            .event(event.outcome().label())
                            .build());
            return ServerResponse.ok()
                    .contentType(MediaType.TEXT_EVENT_STREAM)
                    .body(BodyInserters.fromServerSentEvents(events));
        });
    }
}

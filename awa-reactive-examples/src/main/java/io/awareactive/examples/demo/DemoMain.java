package io.awareactive.examples.demo;

import java.io.PrintStream;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Entry point of {@code ./demo}: see {@code ./demo --help}. Exit codes: 0 done, 1 failed (one line on stderr, for
 * example an unreachable database), 2 bad command line.
 */
public final class DemoMain {

    /** Logging configuration of the demo: warnings only, on stderr, so stdout stays readable. */
    static final String LOGBACK_CONFIGURATION = "awa-demo-logback.xml";

    private DemoMain() {
    }

    /**
     * Runs the demo and exits with its exit code.
     *
     * @param args the command line, see {@code --help}
     */
    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", LOGBACK_CONFIGURATION);
        }
        System.exit(run(args, System.out, System.err, System::getenv));
    }

    /**
     * Runs the demo.
     *
     * @param args the command line
     * @param out where the demo prints its lines
     * @param err where a failure's one line goes
     * @param environment environment lookup
     * @return the exit code
     */
    static int run(String[] args, PrintStream out, PrintStream err, Function<String, @Nullable String> environment) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args, environment);
        } catch (DemoOptions.UsageException e) {
            err.println("demo: " + e.getMessage());
            return 2;
        }
        if (options.help()) {
            out.print(DemoOptions.usage());
            return 0;
        }
        try {
            new RingDemo(options, out, metrics -> { }).run();
            return 0;
        } catch (DemoException e) {
            err.println("demo: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("demo: failed: " + RingDemo.rootMessage(e) + " (" + e.getClass().getSimpleName() + ")");
            return 1;
        }
    }
}

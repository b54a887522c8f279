package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Command line: {@code java -jar benchmarks.jar SUITE [--data FILE] [--out FILE] [--limit N] [--turns N]
 * [--pg-url URL --pg-user USER --pg-password PASSWORD]}.
 * Every suite runs our plugin and LangChain4j's default side by side, prints a table and, with
 * {@code --out}, writes JSON in the shape of the benchmarks issue.
 */
public final class BenchMain {

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        OptionalInt relaunched = VectorModule.relaunchIfMissing(BenchMain.class, args);
        int rc = relaunched.isPresent() ? relaunched.getAsInt() : run(args, System.out, System.err);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    /** Runs one command; returns the process exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        return run(args, SuiteRegistry.standard(), new BenchContext(out), err);
    }

    static int run(String[] args, SuiteRegistry registry, BenchContext context, PrintStream err) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            usage(registry, err);
            return args.length == 0 ? 2 : 0;
        }
        Optional<Suite> suite = registry.find(args[0]);
        if (suite.isEmpty()) {
            err.println("unknown suite: " + args[0]);
            usage(registry, err);
            return 2;
        }
        SuiteOptions options;
        try {
            options = parse(Arrays.copyOfRange(args, 1, args.length));
            suite.get().check(options);
            if (suite.get().needsData()) {
                Path data = options.requireData(suite.get().name());
                if (!Files.isRegularFile(data)) {
                    throw new IllegalArgumentException("--data " + data + " is not a readable file");
                }
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            usage(registry, err);
            return 2;
        }
        ObjectNode result = suite.get().run(options, context);
        if (options.out().isPresent()) {
            Path out = options.out().get();
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            JSON.writeValue(out.toFile(), result);
            context.out().println("wrote " + out);
        }
        return 0;
    }

    static SuiteOptions parse(String[] args) {
        Path data = null;
        Path out = null;
        Integer limit = null;
        Integer turns = null;
        String pgUrl = null;
        String pgUser = null;
        String pgPassword = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--data" -> data = Path.of(v);
                case "--out" -> out = Path.of(v);
                case "--limit" -> limit = positive(a, v);
                case "--turns" -> turns = positive(a, v);
                case "--pg-url" -> pgUrl = v;
                case "--pg-user" -> pgUser = v;
                case "--pg-password" -> pgPassword = v;
                default -> throw new IllegalArgumentException("unknown option: " + a);
            }
        }
        return new SuiteOptions(Optional.ofNullable(data), Optional.ofNullable(out),
                limit == null ? OptionalInt.empty() : OptionalInt.of(limit),
                turns == null ? OptionalInt.empty() : OptionalInt.of(turns),
                Optional.ofNullable(pgUrl), Optional.ofNullable(pgUser), Optional.ofNullable(pgPassword));
    }

    private static int positive(String option, String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a positive integer: " + value);
        }
        if (n < 1) {
            throw new IllegalArgumentException(option + " must be a positive integer: " + value);
        }
        return n;
    }

    private static void usage(SuiteRegistry registry, PrintStream err) {
        err.println("usage: java -jar benchmarks.jar SUITE [--data FILE] [--out FILE] [--limit N] [--turns N]"
                + " [--pg-url URL --pg-user USER --pg-password PASSWORD]");
        for (Suite s : registry.inOrder()) {
            err.printf("  %-17s %s%n", s.name(), s.description());
        }
    }
}

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Embedded Neo4j 5.26 for graphfeed's server-backed tests (no Docker, no tarball: only Maven Central jars).
 *
 * Usage: java -Xmx1g -cp <jars>/*:<classes> Neo4jLauncher <dataDir> <boltPort>
 *        (or as a single-file source program: java -cp '<jars>/*' Neo4jLauncher.java <dataDir> <boltPort>)
 * The password of user neo4j comes from the environment variable GRAPHFEED_NEO4J_PASSWORD, never argv,
 * so it does not show up in `ps`. Prints "READY bolt://127.0.0.1:<port>" once Bolt accepts logins.
 * Stops cleanly on SIGTERM (shutdown hook) or when stdin reaches EOF (the parent died or closed the pipe),
 * so a crashed test run never leaves an orphan JVM behind.
 */
public final class Neo4jLauncher {
    static final String PASSWORD_ENV = "GRAPHFEED_NEO4J_PASSWORD";

    /** Page cache in MB: 64 for the tests' small graphs; $GRAPHFEED_NEO4J_PAGECACHE_MB for a large bench graph. */
    static long pagecacheMb() {
        String mb = System.getenv("GRAPHFEED_NEO4J_PAGECACHE_MB");
        return mb == null || mb.isBlank() ? 64L : Long.parseLong(mb.trim());
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Neo4jLauncher <dataDir> <boltPort>  (password in $" + PASSWORD_ENV + ")");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        String password = System.getenv(PASSWORD_ENV);
        if (password == null || password.length() < 8) {
            System.err.println("FATAL $" + PASSWORD_ENV + " must hold a password of at least 8 characters");
            System.exit(2);
        }

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setUserLogProvider(new Log4jLogProvider(System.out, Level.INFO))
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, pagecacheMb() * 1024 * 1024)
                .setConfig(GraphDatabaseSettings.logs_directory, home.resolve("logs"))
                // Bolt's graceful shutdown waits 2 x 5 s by default; a throwaway test server need not.
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(2))
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(200))
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(200))
                .build();

        AtomicBoolean stopped = new AtomicBoolean(false);
        Runnable stop = () -> {
            if (stopped.compareAndSet(false, true)) {
                System.out.println("STOPPING");
                System.out.flush();
                dbms.shutdown();
                System.out.println("STOPPED");
                System.out.flush();
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "neo4j-launcher-shutdown"));

        // Embedded access bypasses auth, so the system database can set the initial password directly.
        dbms.database("system").executeTransactionally(
                "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));

        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();

        waitForStdinEof(System.in);
        stop.run();
        System.exit(0);
    }

    private static void waitForStdinEof(InputStream in) {
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // Input is ignored; only EOF matters.
            }
        } catch (IOException e) {
            // A broken pipe means the parent is gone: shut down as for EOF.
        }
    }
}

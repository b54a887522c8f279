/**
 * memory-store-jdbc: the event store on a relational database, an embedded H2 file or a server
 * such as PostgreSQL. Start from {@link dev.agentmemory.store.jdbc.JdbcStores}.
 */
module dev.agentmemory.store.jdbc {
    requires transitive dev.agentmemory.core;
    // JdbcStores.dataSource(DataSource)
    requires transitive java.sql;
    requires com.h2database;
    // H2 is an automatic module; its JdbcDataSource (behind JdbcStores.h2*) implements javax.naming types
    // (HikariCP requires java.naming as well)
    requires java.naming;
    // JdbcStores.connect(url, ...) pools connections with HikariCP
    requires com.zaxxer.hikari;
    requires static org.jspecify;

    exports dev.agentmemory.store.jdbc;
}

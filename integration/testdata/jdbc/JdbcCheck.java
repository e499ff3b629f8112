import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

/**
 * JdbcCheck runs what a Java application and its tools ask of a database
 * through pgjdbc, printing every result in text, so that a test can compare
 * the output against fickle with the output against PostgreSQL.
 *
 * Usage: java JdbcCheck meta|app URL
 *   meta: the DatabaseMetaData calls DBeaver and Hibernate make on startup.
 *   app:  prepared statements past prepareThreshold, batches, generated
 *         keys, ResultSetMetaData, transactions and savepoints.
 */
public class JdbcCheck {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[1])) {
            if (args[0].equals("meta")) {
                meta(c);
            } else {
                app(c);
            }
        }
    }

    static void dump(String title, ResultSet rs) throws SQLException {
        System.out.println("=== " + title);
        ResultSetMetaData md = rs.getMetaData();
        StringBuilder h = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            h.append(i > 1 ? "|" : "").append(md.getColumnLabel(i));
        }
        System.out.println(h);
        while (rs.next()) {
            StringBuilder r = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                String v = rs.getString(i);
                if (md.getColumnType(i) == Types.BINARY && rs.getBytes(i) != null) {
                    v = HexFormat.of().formatHex(rs.getBytes(i));
                }
                r.append(i > 1 ? "|" : "").append(v == null ? "NULL" : v);
            }
            System.out.println(r);
        }
        rs.close();
    }

    static void meta(Connection c) throws SQLException {
        DatabaseMetaData m = c.getMetaData();
        System.out.println("=== product " + m.getDatabaseProductName() + " " + m.getDatabaseMajorVersion());
        System.out.println("=== keywords " + m.getSQLKeywords());
        dump("getSchemas", m.getSchemas());
        dump("getTableTypes", m.getTableTypes());
        dump("getTables", m.getTables(null, null, "%", new String[]{"TABLE", "VIEW", "SEQUENCE", "INDEX"}));
        for (String schema : new String[]{"public", "shop"}) {
            dump("getColumns " + schema, m.getColumns(null, schema, "%", "%"));
            List<String> tables = new ArrayList<>();
            try (ResultSet ts = m.getTables(null, schema, "%", new String[]{"TABLE"})) {
                while (ts.next()) {
                    tables.add(ts.getString("TABLE_NAME"));
                }
            }
            for (String t : tables) {
                dump("getPrimaryKeys " + schema + "." + t, m.getPrimaryKeys(null, schema, t));
                dump("getImportedKeys " + schema + "." + t, m.getImportedKeys(null, schema, t));
                dump("getExportedKeys " + schema + "." + t, m.getExportedKeys(null, schema, t));
                dump("getIndexInfo " + schema + "." + t, m.getIndexInfo(null, schema, t, false, true));
                dump("getIndexInfo unique " + schema + "." + t, m.getIndexInfo(null, schema, t, true, true));
            }
        }
        dump("getCrossReference", m.getCrossReference(null, "shop", "orders", null, "shop", "order_lines"));
        dump("getTypeInfo", m.getTypeInfo());
    }

    static void app(Connection c) throws SQLException {
        c.setAutoCommit(false);
        // Past prepareThreshold (5) pgjdbc switches to a named server-side
        // statement and binary transfer of the types it knows.
        try (PreparedStatement ins = c.prepareStatement(
                "INSERT INTO customers (email, name, vip) VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < 12; i++) {
                ins.setString(1, "user" + i + "@example.com");
                if (i % 4 == 0) {
                    ins.setNull(2, Types.VARCHAR);
                } else {
                    ins.setString(2, "User " + i);
                }
                ins.setBoolean(3, i % 3 == 0);
                ins.executeUpdate();
                try (ResultSet keys = ins.getGeneratedKeys()) {
                    keys.next();
                    System.out.println("inserted " + keys.getInt("id") + " " + keys.getString("email"));
                }
            }
        }
        try (PreparedStatement sel = c.prepareStatement(
                "SELECT id, email, name, vip, created_at IS NOT NULL AS stamped FROM customers WHERE id = ? OR email = ?")) {
            for (int i = 1; i <= 12; i++) {
                sel.setInt(1, i);
                sel.setString(2, "user" + (12 - i) + "@example.com");
                dump("select " + i, sel.executeQuery());
            }
            ResultSetMetaData md = sel.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                System.out.println("column " + md.getColumnName(i) + " " + md.getColumnTypeName(i) + " type=" + md.getColumnType(i)
                        + " nullable=" + md.isNullable(i) + " auto=" + md.isAutoIncrement(i) + " precision=" + md.getPrecision(i)
                        + " scale=" + md.getScale(i) + " table=" + md.getTableName(i) + " base=" + md.getColumnName(i));
            }
        }
        // A batch, and one that the driver rewrites into a multi-row INSERT.
        try (PreparedStatement batch = c.prepareStatement(
                "INSERT INTO shop.products (sku, title, price, weight, tags, uid) VALUES (?, ?, ?, ?, ?, ?::uuid)")) {
            for (int i = 0; i < 20; i++) {
                batch.setString(1, String.format("SKU%05d", i));
                batch.setString(2, "Product " + i);
                batch.setBigDecimal(3, new BigDecimal(i).add(new BigDecimal("0.25")));
                batch.setFloat(4, i * 1.5f);
                batch.setArray(5, c.createArrayOf("text", new String[]{"t" + i, "all"}));
                batch.setString(6, String.format("00000000-0000-0000-0000-%012d", i));
                batch.addBatch();
            }
            System.out.println("batch " + Arrays.toString(batch.executeBatch()));
        }
        try (Statement st = c.createStatement()) {
            st.addBatch("UPDATE shop.products SET weight = weight + 1 WHERE sku < 'SKU00005'");
            st.addBatch("DELETE FROM shop.products WHERE sku = 'SKU00019'");
            st.addBatch("INSERT INTO audit (at, who, amount, ok) VALUES ('2024-01-02 03:04:05', 'batch', 1.5, true)");
            System.out.println("statement batch " + Arrays.toString(st.executeBatch()));
            dump("products", st.executeQuery("SELECT sku, title, price, weight, tags, uid FROM shop.products ORDER BY sku"));
        }
        // Typed parameters in binary once prepared.
        try (PreparedStatement typed = c.prepareStatement(
                "SELECT ?::int8 + 1, ?::numeric * 2, ?::timestamptz, ?::date, ?::float8 / 2, ?::bool, ?::text || '!', ?::bytea")) {
            for (int i = 0; i < 7; i++) {
                typed.setLong(1, 9000000000L + i);
                typed.setBigDecimal(2, new BigDecimal("12.345"));
                typed.setTimestamp(3, Timestamp.valueOf("2024-05-06 07:08:09.123456"));
                typed.setDate(4, java.sql.Date.valueOf("2024-02-29"));
                typed.setDouble(5, 3.5);
                typed.setBoolean(6, i % 2 == 0);
                typed.setString(7, "hi");
                typed.setBytes(8, new byte[]{1, 2, (byte) i});
                dump("typed " + i, typed.executeQuery());
            }
        }
        c.commit();
        // Savepoints and rollback.
        try (Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO audit (who) VALUES ('kept')");
            Savepoint sp = c.setSavepoint("sp");
            st.executeUpdate("INSERT INTO audit (who) VALUES ('undone')");
            c.rollback(sp);
            try {
                st.executeUpdate("INSERT INTO customers (email) VALUES ('user1@example.com')");
            } catch (SQLException e) {
                System.out.println("duplicate " + e.getSQLState());
                c.rollback();
            }
            dump("audit after rollback", st.executeQuery("SELECT who FROM audit ORDER BY who"));
            st.executeUpdate("INSERT INTO audit (who) VALUES ('committed')");
            c.commit();
            dump("audit", st.executeQuery("SELECT who FROM audit ORDER BY who"));
            dump("counts", st.executeQuery("SELECT (SELECT count(*) FROM customers), (SELECT count(*) FROM shop.products)"));
            c.commit();
        }
    }
}

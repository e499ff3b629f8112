import java.io.ByteArrayInputStream;
import java.sql.*;
import java.util.*;
import org.postgresql.PGConnection;
import org.postgresql.largeobject.LargeObject;
import org.postgresql.largeobject.LargeObjectManager;

/**
 * LargeObjectCheck uses large objects the way Java applications do through
 * pgjdbc, whose LargeObjectManager calls the server's lo_* functions by OID
 * with the protocol's FunctionCall message: the manager's create, open,
 * write, seek, read, tell, size, truncate and delete, and setBlob/getBlob
 * on an oid column (Hibernate's @Lob), in transactions committed and
 * rolled back. It prints no OID, so that the output against fickle and
 * against PostgreSQL can be compared.
 *
 * Usage: java LargeObjectCheck URL
 */
public class LargeObjectCheck {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            c.setAutoCommit(false);
            LargeObjectManager lom = c.unwrap(PGConnection.class).getLargeObjectAPI();
            byte[] data = new byte[5000];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) ('a' + i % 26);
            }

            long oid = lom.createLO(LargeObjectManager.READWRITE);
            LargeObject lo = lom.open(oid, LargeObjectManager.WRITE);
            lo.write(data);
            System.out.println("tell after write " + lo.tell64());
            lo.seek(2040);
            System.out.println("read across pages " + new String(lo.read(16)));
            lo.seek(-4, LargeObject.SEEK_END);
            System.out.println("read at end " + new String(lo.read(10)));
            lo.truncate(3000);
            System.out.println("size after truncate " + lo.size64());
            lo.seek64(10000, LargeObject.SEEK_SET);
            lo.write("tail".getBytes());
            System.out.println("size after write past the end " + lo.size64());
            lo.close();
            c.commit();

            lo = lom.open(oid, LargeObjectManager.READ);
            byte[] all = lo.read(20000);
            System.out.println("read back " + all.length + " bytes, hole zero " + (all[5000] == 0) + ", tail " + new String(all, 10000, 4));
            lo.close();
            c.commit();

            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE docs (id int PRIMARY KEY, body oid)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO docs VALUES (?, ?)")) {
                ps.setInt(1, 1);
                ps.setBlob(2, new ByteArrayInputStream("the first document".getBytes()));
                ps.executeUpdate();
                ps.setInt(1, 2);
                ps.setLong(2, oid);
                ps.executeUpdate();
            }
            c.commit();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, body, length(lo_get(body)) FROM docs ORDER BY id")) {
                while (rs.next()) {
                    Blob b = rs.getBlob(2);
                    byte[] head = b.getBytes(1, (int) Math.min(b.length(), 18));
                    System.out.println("doc " + rs.getInt(1) + " blob length " + b.length() + " lo_get length " + rs.getInt(3) + " starts " + new String(head));
                }
            }
            c.commit();

            long gone = lom.createLO();
            LargeObject g = lom.open(gone, LargeObjectManager.WRITE);
            g.write("rolled back".getBytes());
            g.close();
            c.rollback();
            try {
                lom.open(gone, LargeObjectManager.READ);
                System.out.println("rolled back object opened");
            } catch (SQLException e) {
                System.out.println("rolled back object: " + e.getSQLState());
            }
            c.rollback();

            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT body FROM docs ORDER BY id")) {
                while (rs.next()) {
                    lom.delete(rs.getLong(1));
                }
            }
            c.commit();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_largeobject_metadata")) {
                rs.next();
                System.out.println("large objects left " + rs.getInt(1));
            }
            c.commit();
        }
    }
}

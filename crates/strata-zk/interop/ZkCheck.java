import org.apache.zookeeper.*;
import org.apache.zookeeper.data.Stat;
import java.util.*;
import java.util.concurrent.*;

public class ZkCheck {
    static void check(boolean ok, String what) {
        System.out.println((ok ? "PASS " : "FAIL ") + what);
        if (!ok) System.exit(1);
    }
    public static void main(String[] args) throws Exception {
        String hosts = args[0];
        CountDownLatch connected = new CountDownLatch(1);
        List<WatchedEvent> events = Collections.synchronizedList(new ArrayList<>());
        ZooKeeper zk = new ZooKeeper(hosts, 4000, e -> {
            events.add(e);
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
        });
        check(connected.await(10, TimeUnit.SECONDS), "connected (SyncConnected)");
        check(zk.getSessionTimeout() == 4000, "negotiated timeout 4000: " + zk.getSessionTimeout());
        long id = zk.getSessionId();
        Stat stat = new Stat();
        byte[] master = zk.getData("/hbase/master", false, stat);
        check(master.length == stat.getDataLength() && master.length > 0, "getData /hbase/master, " + master.length + " bytes");
        check(new String(zk.getData("/hbase/hbaseid", true, null)).equals("example-cluster-id"), "getData /hbase/hbaseid with a watch");
        List<String> kids = zk.getChildren("/hbase", false);
        Collections.sort(kids);
        check(kids.equals(Arrays.asList("hbaseid", "master", "meta-region-server")), "getChildren /hbase " + kids);
        Stat s2 = new Stat();
        zk.getChildren("/", false, s2);
        check(s2.getNumChildren() == 1, "getChildren2 / with stat");
        check(zk.exists("/hbase", false).getNumChildren() == 3, "exists /hbase");
        check(zk.exists("/hbase/nope", false) == null, "exists on a missing node is null");
        try { zk.getData("/hbase/nope", false, null); check(false, "NoNode"); }
        catch (KeeperException.NoNodeException e) { check(true, "getData missing -> NoNodeException"); }
        try { zk.create("/hbase/x", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT); check(false, "create refused"); }
        catch (KeeperException e) { check(e.code() == KeeperException.Code.NOTREADONLY, "create -> " + e.code()); }
        try { zk.setData("/hbase/master", new byte[0], -1); check(false, "setData refused"); }
        catch (KeeperException e) { check(e.code() == KeeperException.Code.NOTREADONLY, "setData -> " + e.code()); }
        CountDownLatch synced = new CountDownLatch(1);
        zk.sync("/hbase", (rc, path, ctx) -> { if (rc == 0) synced.countDown(); }, null);
        check(synced.await(5, TimeUnit.SECONDS), "sync");
        check(zk.getACL("/hbase", new Stat()).get(0).getPerms() == ZooDefs.Perms.READ, "getACL world:anyone READ");
        Thread.sleep(10000);
        check(zk.getState() == ZooKeeper.States.CONNECTED && zk.getSessionId() == id, "idle 10 s (2.5 timeouts): still connected, same session");
        check(zk.getData("/hbase/master", false, null).length == master.length, "getData after idling");
        zk.close();
        check(true, "closeSession");

        // Chroot is the client's: "host/hbase" sends /hbase/master for /master.
        CountDownLatch c2 = new CountDownLatch(1);
        ZooKeeper chrooted = new ZooKeeper(hosts + "/hbase", 4000, e -> { if (e.getState() == Watcher.Event.KeeperState.SyncConnected) c2.countDown(); });
        check(c2.await(10, TimeUnit.SECONDS), "chrooted connect");
        check(chrooted.getData("/master", false, null).length == master.length, "chroot /hbase: getData /master");
        chrooted.close();
        System.out.println("ALL PASSED");
    }
}

package cdc.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.ChangeEvent;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Runs Debezium's embedded engine and writes every record as one NDJSON line:
 * {"topic":..,"key":..,"value":..,"headers":{..}} with key, value and headers rendered by Kafka Connect's
 * JsonConverter exactly as a Kafka Connect worker would put them on the wire.
 *
 * <p>Usage: java -cp target/classes:target/lib/* cdc.oracle.Oracle [options] [connector.prop=value ...]
 * <ul>
 *   <li>--props FILE       connector/engine properties (key=value lines); later key=value arguments override
 *   <li>--out FILE         NDJSON output (default stdout); --discard converts but writes nothing (benchmarks)
 *   <li>--schemas BOOL     JsonConverter schemas.enable for key and value (default false)
 *   <li>--max-records N    stop after N records
 *   <li>--stop-topic T     stop after the first record whose topic is T
 *   <li>--idle-ms N        stop once streaming is connected and no record arrived for N ms
 *   <li>--stop-file FILE   stop when FILE exists
 *   <li>--ready-file FILE  written once the connector's streaming phase is connected (JMX metric Connected)
 *   <li>--timeout-ms N     fail (exit 3) when no stop condition was met after N ms (default 300000)
 * </ul>
 * On exit one JSON summary line goes to stderr prefixed "ORACLE-SUMMARY ": record count, times and CPU at the
 * first and last record, and peak RSS, so benchmarks measure the engine without the JVM start.
 */
public final class Oracle {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Oracle() {}

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    Map<String, String> opts = new HashMap<>();
    Set<String> flags = Set.of("--discard");
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (flags.contains(a)) {
        opts.put(a, "true");
      } else if (a.startsWith("--")) {
        if (i + 1 >= args.length) fail("option " + a + " needs a value");
        opts.put(a, args[++i]);
      } else if (a.contains("=")) {
        // applied after --props below
      } else {
        fail("unexpected argument '" + a + "' (expected --option value or property=value)");
      }
    }
    if (opts.containsKey("--props")) {
      try (InputStream in = new FileInputStream(opts.get("--props"))) {
        props.load(in);
      }
    }
    for (String a : args) {
      if (!a.startsWith("--") && a.contains("=")) {
        int eq = a.indexOf('=');
        props.setProperty(a.substring(0, eq), a.substring(eq + 1));
      }
    }
    Path tmp = Files.createTempDirectory("cdc-oracle-");
    props.putIfAbsent("name", "oracle");
    props.putIfAbsent("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    props.putIfAbsent("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    props.putIfAbsent("offset.storage.file.filename", tmp.resolve("offsets.dat").toString());
    props.putIfAbsent("offset.flush.interval.ms", "1000");
    props.putIfAbsent("schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory");
    props.putIfAbsent("schema.history.internal.file.filename", tmp.resolve("history.dat").toString());
    for (String required : new String[] {"database.hostname", "database.port", "database.user", "topic.prefix"}) {
      if (!props.containsKey(required)) fail("missing connector property " + required + " (pass " + required + "=...)");
    }

    boolean schemas = Boolean.parseBoolean(opts.getOrDefault("--schemas", "false"));
    long maxRecords = Long.parseLong(opts.getOrDefault("--max-records", "-1"));
    String stopTopic = opts.get("--stop-topic");
    long idleMs = Long.parseLong(opts.getOrDefault("--idle-ms", "-1"));
    Path stopFile = opts.containsKey("--stop-file") ? Path.of(opts.get("--stop-file")) : null;
    Path readyFile = opts.containsKey("--ready-file") ? Path.of(opts.get("--ready-file")) : null;
    long timeoutMs = Long.parseLong(opts.getOrDefault("--timeout-ms", "300000"));
    boolean discard = opts.containsKey("--discard");

    JsonConverter keyConv = converter(schemas, true);
    JsonConverter valueConv = converter(schemas, false);
    // Header values as plain JSON (no {schema, payload} wrapper), as our sinks write them.
    JsonConverter headerConv = converter(false, false);
    OutputStream out =
        discard
            ? OutputStream.nullOutputStream()
            : new BufferedOutputStream(
                opts.containsKey("--out") ? new FileOutputStream(opts.get("--out")) : System.out, 1 << 16);

    Stats stats = new Stats();
    CountDownLatch stop = new CountDownLatch(1);
    AtomicReference<Throwable> engineError = new AtomicReference<>();
    long t0 = System.nanoTime();

    DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine =
        DebeziumEngine.create(Connect.class)
            .using(props)
            .using(
                (success, message, error) -> {
                  if (!success) engineError.set(error != null ? error : new RuntimeException(message));
                  stop.countDown();
                })
            .notifying(
                (List<ChangeEvent<SourceRecord, SourceRecord>> batch,
                    DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer) -> {
                  synchronized (stats) {
                    try {
                      for (ChangeEvent<SourceRecord, SourceRecord> event : batch) {
                        SourceRecord r = event.value();
                        if (stop.getCount() == 0) break;
                        byte[] key = keyConv.fromConnectData(r.topic(), r.keySchema(), r.key());
                        byte[] value = valueConv.fromConnectData(r.topic(), r.valueSchema(), r.value());
                        StringBuilder headers = new StringBuilder("{");
                        for (Header h : r.headers()) {
                          if (headers.length() > 1) headers.append(',');
                          byte[] hv = headerConv.fromConnectHeader(r.topic(), h.key(), h.schema(), h.value());
                          headers.append(JSON.writeValueAsString(h.key())).append(':')
                              .append(hv == null ? "null" : new String(hv, StandardCharsets.UTF_8));
                        }
                        headers.append('}');
                        if (!discard) {
                          out.write(("{\"topic\":" + JSON.writeValueAsString(r.topic()) + ",\"key\":").getBytes(StandardCharsets.UTF_8));
                          out.write(key == null ? "null".getBytes(StandardCharsets.UTF_8) : key);
                          out.write(",\"value\":".getBytes(StandardCharsets.UTF_8));
                          out.write(value == null ? "null".getBytes(StandardCharsets.UTF_8) : value);
                          out.write((",\"headers\":" + headers + "}\n").getBytes(StandardCharsets.UTF_8));
                        }
                        stats.record();
                        committer.markProcessed(event);
                        if ((maxRecords >= 0 && stats.records >= maxRecords)
                            || (stopTopic != null && stopTopic.equals(r.topic()))) {
                          out.flush();
                          stats.stopped();
                          stop.countDown();
                          break;
                        }
                      }
                      out.flush();
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }
                  committer.markBatchFinished();
                })
            .build();

    ExecutorService executor = Executors.newSingleThreadExecutor();
    executor.execute(engine);

    MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    ObjectName streamingMetrics = new ObjectName("debezium.*:type=connector-metrics,context=streaming,*");
    boolean connected = false;
    int exit = 0;
    while (!stop.await(50, TimeUnit.MILLISECONDS)) {
      long now = System.nanoTime();
      if (!connected) {
        for (ObjectName n : mbeans.queryNames(streamingMetrics, null)) {
          try {
            if (Boolean.TRUE.equals(mbeans.getAttribute(n, "Connected"))) connected = true;
          } catch (Exception e) {
            // metric not registered yet
          }
        }
        if (connected) {
          stats.connectedNs = now;
          if (readyFile != null) Files.writeString(readyFile, "streaming\n");
        }
      }
      if (stopFile != null && Files.exists(stopFile)) break;
      if (idleMs >= 0 && connected) {
        long last;
        synchronized (stats) {
          last = Math.max(stats.lastNs, stats.connectedNs);
        }
        if (now - last > idleMs * 1_000_000L) break;
      }
      if (now - t0 > timeoutMs * 1_000_000L) {
        System.err.println("oracle: no stop condition met within " + timeoutMs + " ms (--timeout-ms)");
        exit = 3;
        break;
      }
    }
    stop.countDown();
    synchronized (stats) {
      out.flush();
    }
    // A connector stuck in a retry loop may not close: never let that keep the JVM alive.
    final int exitIfStuck = exit == 0 ? 4 : exit;
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(15_000);
              } catch (InterruptedException e) {
                return;
              }
              System.err.println("oracle: engine did not close within 15 s");
              System.err.flush();
              Runtime.getRuntime().halt(exitIfStuck);
            });
    watchdog.setDaemon(true);
    watchdog.start();
    try {
      engine.close();
    } catch (IllegalStateException e) {
      // the engine already stopped itself (a connector failure, reported below)
    }
    executor.shutdown();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    if (engineError.get() != null) {
      System.err.println("oracle: engine failed: " + engineError.get());
      engineError.get().printStackTrace();
      exit = 2;
    }
    synchronized (stats) {
      System.err.println("ORACLE-SUMMARY " + stats.summary(t0));
    }
    System.err.flush();
    out.close();
    System.exit(exit);
  }

  private static JsonConverter converter(boolean schemas, boolean isKey) {
    JsonConverter c = new JsonConverter();
    Map<String, Object> cfg = new HashMap<>();
    cfg.put("schemas.enable", schemas);
    cfg.put("converter.type", isKey ? "key" : "value");
    c.configure(cfg, isKey);
    return c;
  }

  private static void fail(String message) {
    System.err.println("oracle: " + message);
    System.exit(64);
  }

  /** Counters for the summary line; guarded by its own monitor. */
  private static final class Stats {
    long records;
    long firstNs = -1;
    long lastNs = -1;
    long firstCpuNs = -1;
    long lastCpuNs = -1;
    long connectedNs = -1;

    /** CPU time is sampled at the first record and every 1024th (a per-record syscall would slow the reference). */
    void record() {
      long now = System.nanoTime();
      if (records == 0) {
        firstNs = now;
        firstCpuNs = processCpuNs();
      }
      records++;
      lastNs = now;
      if ((records & 1023) == 0) lastCpuNs = processCpuNs();
    }

    void stopped() {
      lastCpuNs = processCpuNs();
    }

    String summary(long t0) {
      Map<String, Object> s = new HashMap<>();
      s.put("records", records);
      s.put("firstMs", firstNs < 0 ? null : (firstNs - t0) / 1e6);
      s.put("lastMs", lastNs < 0 ? null : (lastNs - t0) / 1e6);
      s.put("connectedMs", connectedNs < 0 ? null : (connectedNs - t0) / 1e6);
      s.put("firstCpuMs", firstCpuNs < 0 ? null : firstCpuNs / 1e6);
      s.put("lastCpuMs", lastCpuNs < 0 ? null : lastCpuNs / 1e6);
      s.put("cpuMs", processCpuNs() / 1e6);
      s.put("peakRssKb", peakRssKb());
      try {
        return JSON.writeValueAsString(s);
      } catch (IOException e) {
        return "{}";
      }
    }
  }

  private static long processCpuNs() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
    return -1;
  }

  private static long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    } catch (IOException e) {
      // not Linux
    }
    return -1;
  }
}

/*
 * Kafka mock cluster launcher for tests and benchmarks, on librdkafka's built-in mock cluster (rdkafka_mock.h).
 *
 *   launcher [--brokers N] [topic[:partitions[:replication]] ...]
 *
 * Creates a mock cluster of N brokers (default 1) listening on 127.0.0.1, pre-creates the given topics (the mock
 * brokers do not implement CreateTopics), prints the bootstrap servers as one line on stdout and then serves until
 * stdin closes. Commands on stdin, one per line, each answered by "ok" or "error <reason>" on stdout:
 *
 *   topic <name> <partitions> [replication]     create a topic (an existing one is left as it is)
 *   errors <apikey> <code> [<code> ...]        the next requests of that API fail with these Kafka error codes
 *                                               (ApiKey 0 = Produce; code -195 = disconnect, see rdkafka.h)
 *   rtt <broker_id> <ms>                        delay every response of a broker
 *   consume <topic> <partitions>                print every message of the topic with librdkafka's own consumer,
 *                                               one line each: msg <partition> <offset> <key> <value> <n> [<hk> <hv>]...
 *                                               (hex, "-" for null), then "ok"
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ERRS 256

static const char *bootstraps;

static void print_hex(const void *data, size_t len) {
  if (!data) {
    fputs(" -", stdout);
    return;
  }
  putchar(' ');
  if (len == 0) putchar('=');  /* empty, not null */
  for (size_t i = 0; i < len; i++) printf("%02x", ((const unsigned char *)data)[i]);
}

/* Reads the whole topic from the start with a group-less consumer; stops at the end of every partition. */
static int consume_topic(const char *topic, int partitions) {
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, errstr, sizeof(errstr)) ||
      rd_kafka_conf_set(conf, "enable.partition.eof", "true", errstr, sizeof(errstr)) ||
      rd_kafka_conf_set(conf, "group.id", "kafka-mock-launcher", errstr, sizeof(errstr)) ||
      rd_kafka_conf_set(conf, "enable.auto.commit", "false", errstr, sizeof(errstr)) ||
      rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr))) {
    printf("error %s\n", errstr);
    return -1;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (!rk) {
    printf("error %s\n", errstr);
    return -1;
  }
  rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; p++)
    rd_kafka_topic_partition_list_add(parts, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  int at_end = 0, rc = 0, idle = 0;
  while (at_end < partitions) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 200);
    if (!m) {
      if (++idle > 150) { /* 30 s without any progress */
        printf("error timed out reading %s\n", topic);
        rc = -1;
        break;
      }
      continue;
    }
    idle = 0;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end++;
    } else if (m->err) {
      printf("error %s\n", rd_kafka_message_errstr(m));
      rd_kafka_message_destroy(m);
      rc = -1;
      break;
    } else {
      printf("msg %d %lld", (int)m->partition, (long long)m->offset);
      print_hex(m->key, m->key_len);
      print_hex(m->payload, m->len);
      rd_kafka_headers_t *hdrs = NULL;
      size_t n = 0;
      if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) n = rd_kafka_header_cnt(hdrs);
      printf(" %zu", n);
      for (size_t i = 0; i < n; i++) {
        const char *name;
        const void *val;
        size_t size;
        rd_kafka_header_get_all(hdrs, i, &name, &val, &size);
        print_hex(name, strlen(name));
        print_hex(val, size);
      }
      putchar('\n');
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return rc;
}

static int create_topic(rd_kafka_mock_cluster_t *mc, const char *name, int partitions, int replication) {
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mc, name, partitions, replication);
  if (err && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
    fprintf(stderr, "launcher: cannot create topic %s: %s\n", name, rd_kafka_err2str(err));
    return -1;
  }
  return 0;
}

static void handle_command(rd_kafka_mock_cluster_t *mc, char *line) {
  char *argv[MAX_ERRS + 2];
  int argc = 0;
  for (char *tok = strtok(line, " \t\r\n"); tok && argc < MAX_ERRS + 2; tok = strtok(NULL, " \t\r\n")) argv[argc++] = tok;
  if (argc == 0) return;
  if (strcmp(argv[0], "topic") == 0 && argc >= 3) {
    int replication = argc >= 4 ? atoi(argv[3]) : 1;
    if (create_topic(mc, argv[1], atoi(argv[2]), replication) == 0) printf("ok\n");
    else printf("error cannot create topic %s\n", argv[1]);
  } else if (strcmp(argv[0], "errors") == 0 && argc >= 3) {
    rd_kafka_resp_err_t errs[MAX_ERRS];
    size_t cnt = 0;
    for (int i = 2; i < argc; i++) errs[cnt++] = (rd_kafka_resp_err_t)atoi(argv[i]);
    rd_kafka_mock_push_request_errors_array(mc, (int16_t)atoi(argv[1]), cnt, errs);
    printf("ok\n");
  } else if (strcmp(argv[0], "rtt") == 0 && argc == 3) {
    rd_kafka_resp_err_t err = rd_kafka_mock_broker_set_rtt(mc, atoi(argv[1]), atoi(argv[2]));
    if (err) printf("error %s\n", rd_kafka_err2str(err));
    else printf("ok\n");
  } else if (strcmp(argv[0], "consume") == 0 && argc == 3) {
    if (consume_topic(argv[1], atoi(argv[2])) == 0) printf("ok\n");
  } else {
    printf("error unknown command %s\n", argv[0]);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  int brokers = 1;
  int first_topic = 1;
  if (argc >= 3 && strcmp(argv[1], "--brokers") == 0) {
    brokers = atoi(argv[2]);
    first_topic = 3;
  }
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* Quiet: the handle only hosts the mock cluster and never connects anywhere. */
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (!rk) {
    fprintf(stderr, "launcher: rd_kafka_new failed: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
  if (!mc) {
    fprintf(stderr, "launcher: rd_kafka_mock_cluster_new failed\n");
    return 1;
  }
  for (int i = first_topic; i < argc; i++) {
    char name[512];
    int partitions = 1, replication = 1;
    char *spec = argv[i];
    char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len >= sizeof(name)) len = sizeof(name) - 1;
    memcpy(name, spec, len);
    name[len] = '\0';
    if (colon) sscanf(colon + 1, "%d:%d", &partitions, &replication);
    if (create_topic(mc, name, partitions, replication) != 0) return 1;
  }
  bootstraps = rd_kafka_mock_cluster_bootstraps(mc);
  printf("%s\n", bootstraps);
  fflush(stdout);

  char line[8192];
  while (fgets(line, sizeof(line), stdin)) handle_command(mc, line);

  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(rk);
  return 0;
}

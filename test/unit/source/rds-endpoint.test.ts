/** RDS Proxy endpoints cannot carry binlog replication (issue 14 item 10): refused at start-up with the fix. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import { parseConfig } from '../../../src/config/index.js';
import { MySqlSource } from '../../../src/source/mysql/mysql-source.js';
import { isRdsProxyHost } from '../../../src/source/mysql/rds-endpoint.js';
import type { SchemaHistory } from '../../../src/stores/schema-history.js';

test('RDS Proxy host names are recognised; cluster, instance and other hosts are not', () => {
  assert.equal(isRdsProxyHost('orders.proxy-c0abcdef1234.eu-west-1.rds.amazonaws.com'), true);
  assert.equal(isRdsProxyHost('ro-orders.endpoint.proxy-c0abcdef1234.us-east-1.rds.amazonaws.com'), true);
  assert.equal(isRdsProxyHost('orders.proxy-c0abcdef1234.cn-north-1.rds.amazonaws.com.cn'), true);
  assert.equal(isRdsProxyHost('orders.cluster-c0abcdef1234.eu-west-1.rds.amazonaws.com'), false);
  assert.equal(isRdsProxyHost('orders-1.c0abcdef1234.eu-west-1.rds.amazonaws.com'), false);
  assert.equal(isRdsProxyHost('proxy-db.internal'), false);
});

test('the capture refuses an RDS Proxy endpoint before connecting, naming the writer endpoint', async () => {
  const config = parseConfig({
    'topic.prefix': 't',
    'database.hostname': 'orders.proxy-c0abcdef1234.eu-west-1.rds.amazonaws.com',
    'database.user': 'cdc',
    'database.password': 'pw',
    'database.server.id': '42',
  });
  let connects = 0;
  const source = new MySqlSource({
    config,
    history: {} as SchemaHistory,
    connect: async () => {
      connects++;
      throw new Error('must not connect');
    },
    logger: silentLogger,
  });
  await assert.rejects(
    source.run({ offset: null, emit: async () => {}, signal: new AbortController().signal, logger: silentLogger }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'CONFIG_INVALID');
      assert.match(err.message, /RDS Proxy endpoint.*database\.hostname to the cluster's writer endpoint/);
      return true;
    },
  );
  assert.equal(connects, 0);
});

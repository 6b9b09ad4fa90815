import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import { ConfigError } from '../../../../src/common/config-error.js';
import { Secret } from '../../../../src/common/secret.js';
import { parseKafkaSinkConfig, regionFromHosts } from '../../../../src/config/kafka-sink.js';
import type { KafkaSinkConfig } from '../../../../src/config/types.js';

function sink(properties: Record<string, string | Secret>, servers = ['b-1.kafka:9092']): KafkaSinkConfig {
  return { type: 'kafka', bootstrapServers: servers, properties, claimCheck: null };
}

function problems(properties: Record<string, string | Secret>, servers?: string[]): string[] {
  try {
    parseKafkaSinkConfig(sink(properties, servers));
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems.map((p) => `${p.property}: ${p.message} ${p.fix}`);
  }
  assert.fail('expected a ConfigError');
}

describe('parseKafkaSinkConfig', () => {
  it('defaults to durable, ordered delivery', () => {
    const s = parseKafkaSinkConfig(sink({}));
    assert.equal(s.acks, -1);
    assert.equal(s.idempotence, 'auto');
    assert.equal(s.compression, 'none');
    assert.equal(s.securityProtocol, 'PLAINTEXT');
    assert.equal(s.sasl, null);
    assert.deepEqual(s.topicCreation, {
      enabled: false,
      partitions: 1,
      replicationFactor: -1,
      cleanupPolicy: 'compact',
    });
  });

  it('reads the Java producer names', () => {
    const s = parseKafkaSinkConfig(
      sink({
        acks: '1',
        'enable.idempotence': 'false',
        'compression.type': 'LZ4',
        'batch.size': '65536',
        'client.id': 'cdc-1',
        'security.protocol': 'sasl_ssl',
        'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.username': 'u',
        'sasl.password': new Secret('p'),
        'ssl.endpoint.identification.algorithm': '',
        'topic.creation.enable': 'true',
        'topic.creation.default.partitions': '6',
        'topic.creation.default.replication.factor': '3',
      }),
    );
    assert.equal(s.acks, 1);
    assert.equal(s.idempotence, false);
    assert.equal(s.compression, 'lz4');
    assert.equal(s.batchSize, 65536);
    assert.equal(s.clientId, 'cdc-1');
    assert.equal(s.securityProtocol, 'SASL_SSL');
    assert.equal(s.sasl?.mechanism, 'SCRAM-SHA-512');
    assert.equal(s.ssl.verifyHostname, false);
    assert.deepEqual(s.topicCreation, { enabled: true, partitions: 6, replicationFactor: 3, cleanupPolicy: 'compact' });
  });

  it('lists every problem at once: unknown keys with did-you-mean, bad values, missing credentials', () => {
    const found = problems({
      'compresion.type': 'lz4',
      acks: '0',
      'linger.ms': 'soon',
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-256',
      'sasl.username': 'cdc',
    });
    assert.equal(found.length, 4, found.join('\n'));
    assert.match(found[0], /sink\.kafka\.compresion\.type: .*did you mean sink\.kafka\.compression\.type\?/);
    assert.match(found.join('\n'), /sink\.kafka\.acks: acks=0 would let the offset advance/);
    assert.match(found.join('\n'), /sink\.kafka\.linger\.ms: must be an integer/);
    assert.match(found.join('\n'), /sink\.kafka\.sasl\.password: is required for sasl\.mechanism=SCRAM-SHA-256/);
  });

  it('suggests the closest allowed value', () => {
    assert.match(problems({ 'compression.type': 'lz5' })[0], /did you mean lz4\?/);
    assert.match(
      problems({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'SCRAM-SHA256',
        'sasl.username': 'u',
        'sasl.password': 'p',
      })[0],
      /did you mean SCRAM-SHA-256\?/,
    );
  });

  it('requires a mechanism with SASL and refuses one without it', () => {
    assert.match(problems({ 'security.protocol': 'SASL_SSL' })[0], /sasl\.mechanism: is required/);
    assert.match(problems({ 'sasl.mechanism': 'PLAIN' })[0], /has no effect with security\.protocol=PLAINTEXT/);
  });

  it('AWS_MSK_IAM: region from the MSK host names, SASL_SSL only', () => {
    const servers = [
      'b-1.demo.abc123.c2.kafka.eu-west-1.amazonaws.com:9098',
      'b-2.demo.abc123.c2.kafka.eu-west-1.amazonaws.com:9098',
    ];
    const s = parseKafkaSinkConfig(sink({ 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'AWS_MSK_IAM' }, servers));
    assert.deepEqual(s.sasl, { mechanism: 'AWS_MSK_IAM', region: 'eu-west-1' });
    const found = problems({ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'AWS_MSK_IAM' });
    assert.equal(found.length, 2);
    assert.match(found[0], /aws\.region: is needed/);
    assert.match(found[1], /must be SASL_SSL/);
    assert.equal(regionFromHosts(['boot-x.c1.kafka-serverless.us-east-2.amazonaws.com:9098']), 'us-east-2');
    assert.equal(regionFromHosts(['localhost:9092']), null);
  });

  it('rejects zstd on a Node.js without zlib zstd, and bad bootstrap entries', () => {
    const zstd = typeof (zlib as unknown as Record<string, unknown>).zstdCompressSync === 'function';
    if (!zstd) assert.match(problems({ 'compression.type': 'zstd' })[0], /zstd needs Node\.js 22\.15/);
    assert.match(problems({}, ['kafka'])[0], /entry "kafka" is not host:port/);
  });
});

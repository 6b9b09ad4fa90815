import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  adjustSchemaName,
  dataChangeTopic,
  HeartbeatBuilder,
  heartbeatTopic,
  SchemaChangeEventBuilder,
  sanitizeTopicName,
  schemaChangeTopic,
  TableEventBuilder,
  transactionTopic,
} from '../../../src/events/index.js';
import { col, customers, source, table } from './fixtures.js';

describe('topic naming', () => {
  it('builds <prefix>.<db>.<table> and the auxiliary topics', () => {
    assert.equal(dataChangeTopic('fulfillment', 'inventory', 'orders'), 'fulfillment.inventory.orders');
    assert.equal(transactionTopic('fulfillment'), 'fulfillment.transaction');
    assert.equal(heartbeatTopic('fulfillment'), '__debezium-heartbeat.fulfillment');
    assert.equal(schemaChangeTopic('fulfillment'), 'fulfillment');
  });

  it('sanitises invalid characters to _ and caps the length at 249', () => {
    assert.equal(dataChangeTopic('srv', 'my db', 'tåble$1'), 'srv.my_db.t_ble_1');
    assert.equal(sanitizeTopicName('a-b_c.D9'), 'a-b_c.D9');
    assert.equal(sanitizeTopicName('x'.repeat(300)).length, 249);
    assert.equal(sanitizeTopicName('..'), '__');
  });

  it('schema names are left alone by default and Avro-adjusted on request', () => {
    assert.equal(
      adjustSchemaName('my-server.inventory.customers.Value', 'none'),
      'my-server.inventory.customers.Value',
    );
    assert.equal(
      adjustSchemaName('my-server.inventory.customers.Value', 'avro'),
      'my_server.inventory.customers.Value',
    );
    assert.equal(adjustSchemaName('1db.t', 'avro'), '_1db.t');
    const b = new TableEventBuilder(customers, { topicPrefix: 'my-server', schemaNameAdjustmentMode: 'avro' });
    assert.equal(b.valueSchema.name, 'my_server.inventory.customers.Value');
    assert.equal(b.topic, 'my-server.inventory.customers');
  });
});

describe('schema change events', () => {
  const altered = table(
    'inventory',
    'customers',
    [
      col('id', 'int', { nullable: false, autoIncrement: true }),
      col('first_name', 'varchar(255)', { nullable: false }),
      col('middle_name', 'varchar(255)'),
      col('last_name', 'varchar(255)', { nullable: false }),
      col('email', 'varchar(255)', { nullable: false }),
      col('status', "enum('a','b''c')", { enumValues: ['a', "b'c"], hasDefault: true, defaultValue: 'a' }),
      col('price', 'decimal(10,2) unsigned'),
    ],
    ['id'],
  );

  it('matches the documented ALTER example (key, value shape, column metadata)', () => {
    const ddl = 'ALTER TABLE customers ADD middle_name varchar(255) AFTER first_name';
    const rec = new SchemaChangeEventBuilder({ topicPrefix: 'mysql' }).build({
      databaseName: 'inventory',
      ddl,
      tableChanges: [{ type: 'ALTER', table: altered }],
      source: { ...source, pos: 570 },
    });
    assert.equal(rec.topic, 'mysql');
    assert.deepEqual(JSON.parse(rec.key ?? ''), { databaseName: 'inventory' });
    const v = JSON.parse(rec.value ?? '');
    assert.deepEqual(Object.keys(v), ['source', 'ts_ms', 'databaseName', 'schemaName', 'ddl', 'tableChanges']);
    assert.equal(v.source.db, 'inventory');
    assert.equal(v.source.table, 'customers');
    assert.equal(v.source.pos, 570);
    assert.equal(v.schemaName, null);
    assert.equal(v.ddl, ddl);
    const [change] = v.tableChanges;
    assert.equal(change.type, 'ALTER');
    assert.equal(change.id, '"inventory"."customers"');
    assert.equal(change.table.defaultCharsetName, 'utf8mb4');
    assert.deepEqual(change.table.primaryKeyColumnNames, ['id']);
    const pick = (c: Record<string, unknown>) => {
      const { comment, defaultValueExpression, enumValues, ...documented } = c;
      return documented;
    };
    assert.deepEqual(pick(change.table.columns[0]), {
      name: 'id',
      jdbcType: 4,
      nativeType: null,
      typeName: 'INT',
      typeExpression: 'INT',
      charsetName: null,
      length: null,
      scale: null,
      position: 1,
      optional: false,
      autoIncremented: true,
      generated: true,
    });
    assert.deepEqual(pick(change.table.columns[2]), {
      name: 'middle_name',
      jdbcType: 12,
      nativeType: null,
      typeName: 'VARCHAR',
      typeExpression: 'VARCHAR',
      charsetName: 'utf8mb4',
      length: 255,
      scale: null,
      position: 3,
      optional: true,
      autoIncremented: false,
      generated: false,
    });
    const status = change.table.columns[5];
    assert.equal(status.jdbcType, 1);
    assert.equal(status.length, 1);
    assert.deepEqual(status.enumValues, ["'a'", "'b''c'"]);
    assert.equal(status.defaultValueExpression, 'a');
    const price = change.table.columns[6];
    assert.deepEqual([price.typeName, price.jdbcType, price.length, price.scale], ['DECIMAL UNSIGNED', 3, 10, 2]);
  });

  it('DROP with an unknown table definition and schemas enabled', () => {
    const rec = new SchemaChangeEventBuilder({ topicPrefix: 'mysql', schemasEnable: true }).build({
      databaseName: 'inventory',
      ddl: 'DROP TABLE `orders`',
      tableChanges: [{ type: 'DROP', table: null, database: 'inventory', name: 'orders' }],
      source,
    });
    const key = JSON.parse(rec.key ?? '');
    assert.equal(key.schema.name, 'io.debezium.connector.mysql.SchemaChangeKey');
    const v = JSON.parse(rec.value ?? '');
    assert.equal(v.schema.name, 'io.debezium.connector.mysql.SchemaChangeValue');
    assert.deepEqual(v.payload.tableChanges, [{ type: 'DROP', id: '"inventory"."orders"', table: null }]);
  });
});

describe('heartbeats', () => {
  it('key {serverName}, value {ts_ms} on __debezium-heartbeat.<prefix>', () => {
    const rec = new HeartbeatBuilder({ topicPrefix: 'dbserver1' }).build(1700000000000);
    assert.equal(rec.topic, '__debezium-heartbeat.dbserver1');
    assert.equal(rec.key, '{"serverName":"dbserver1"}');
    assert.equal(rec.value, '{"ts_ms":1700000000000}');
    const withSchemas = new HeartbeatBuilder({ topicPrefix: 'dbserver1', schemasEnable: true }).build(1);
    assert.equal(JSON.parse(withSchemas.key ?? '').schema.name, 'io.debezium.connector.common.ServerNameKey');
    assert.equal(JSON.parse(withSchemas.value ?? '').schema.name, 'io.debezium.connector.common.Heartbeat');
  });
});

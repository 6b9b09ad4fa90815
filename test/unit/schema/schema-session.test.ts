import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareSchemaSession, schemaSessionStatements } from '../../../src/source/mysql/schema/schema-loader.js';

test('generated invisible primary keys: the schema session turns show_gipk_in_create_table_and_information_schema ON', () => {
  assert.deepEqual(schemaSessionStatements('mysql', 'OFF'), [
    'SET SESSION show_gipk_in_create_table_and_information_schema = ON',
  ]);
  assert.deepEqual(schemaSessionStatements('mysql', 'ON'), []);
  assert.deepEqual(schemaSessionStatements('mysql', null), [], 'MySQL before 8.0.30 has no such variable');
  assert.deepEqual(schemaSessionStatements('mariadb', 'OFF'), [], 'MariaDB has no GIPKs');
});

test('prepareSchemaSession asks MySQL for the variable and sets it; sends nothing to MariaDB', async () => {
  const sent: string[] = [];
  const conn = (value: string | null) => ({
    async query(sql: string): Promise<[unknown, unknown]> {
      sent.push(sql);
      if (sql.startsWith('SHOW VARIABLES'))
        return [
          value === null ? [] : [{ Variable_name: 'show_gipk_in_create_table_and_information_schema', Value: value }],
          [],
        ];
      return [[], []];
    },
  });
  await prepareSchemaSession(conn('OFF'), { flavor: 'mysql' });
  assert.deepEqual(sent, [
    "SHOW VARIABLES LIKE 'show_gipk_in_create_table_and_information_schema'",
    'SET SESSION show_gipk_in_create_table_and_information_schema = ON',
  ]);
  sent.length = 0;
  await prepareSchemaSession(conn(null), { flavor: 'mysql' });
  assert.equal(sent.length, 1);
  sent.length = 0;
  await prepareSchemaSession(conn('OFF'), { flavor: 'mariadb' });
  assert.deepEqual(sent, []);
});

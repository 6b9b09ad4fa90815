/**
 * Credentials in SQL text: account statements carry passwords (`CREATE USER ... IDENTIFIED BY '...'`,
 * `SET PASSWORD ... = '...'`, `PASSWORD('...')`, `CHANGE MASTER TO MASTER_PASSWORD='...'`). Statements we print
 * (`cdc binlog-dump`) or publish (schema-change events' `ddl`) get those literals replaced by '***'. Debezium
 * itself emits the DDL text as written; we deliberately do not, since a captured stream is not a credential store.
 */
const STRING = String.raw`(?:'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")`;
const PATTERNS: RegExp[] = [
  // IDENTIFIED BY 'pw' | IDENTIFIED BY PASSWORD 'hash' | IDENTIFIED WITH plugin BY 'pw' | ... AS 'hash'
  new RegExp(String.raw`(\bIDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+)?)${STRING}`, 'gi'),
  new RegExp(String.raw`(\bIDENTIFIED\s+VIA\s+\S+\s+(?:USING|AS)\s+(?:PASSWORD\s*\(\s*)?)${STRING}`, 'gi'),
  // PASSWORD('pw'), OLD_PASSWORD('pw')
  new RegExp(String.raw`(\b(?:OLD_)?PASSWORD\s*\(\s*)${STRING}`, 'gi'),
  // SET PASSWORD [FOR u] = 'hash'
  new RegExp(String.raw`(\bSET\s+PASSWORD\b[^=;]*=\s*)${STRING}`, 'gi'),
  // CHANGE MASTER/REPLICATION SOURCE TO MASTER_PASSWORD='pw', SOURCE_PASSWORD = 'pw'
  new RegExp(String.raw`(\b(?:MASTER|SOURCE)_PASSWORD\s*=\s*)${STRING}`, 'gi'),
];

export function redactSqlSecrets(sql: string): string {
  let out = sql;
  for (const p of PATTERNS) out = out.replace(p, "$1'***'");
  return out;
}

/**
 * Credentials in SQL text: account statements carry passwords (`CREATE USER ... IDENTIFIED BY '...'`,
 * `SET PASSWORD ... = '...'`, `PASSWORD('...')`, `CHANGE MASTER TO MASTER_PASSWORD='...'`). Statements we print
 * (`cdc binlog-dump`), publish (schema-change events' `ddl`) or store (schema history) get those literals replaced by
 * '***', and so do passwords in URLs (FEDERATED/CONNECT tables' CONNECTION strings) and server OPTIONS. Debezium
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
  // CREATE/ALTER SERVER ... OPTIONS (USER 'u', PASSWORD 'pw')
  new RegExp(String.raw`(\bPASSWORD\s+)${STRING}`, 'gi'),
];
/** `user:password@` in URLs, e.g. FEDERATED/CONNECT tables' CONNECTION='mysql://u:pw@host/db/t'. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@'"\s]*:)[^@'"\s]+(@)/gi;

export function redactSqlSecrets(sql: string): string {
  let out = sql;
  for (const p of PATTERNS) out = out.replace(p, "$1'***'");
  return out.replace(URL_CREDENTIALS, '$1***$2');
}

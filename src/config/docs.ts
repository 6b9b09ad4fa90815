/** Generated reference documentation (docs/configuration.md) and `--help` text, both from the catalog. */

import { suggestProperty } from './normalize.js';
import { findProperty, GROUPS, PROPERTIES, type PropertyDef } from './properties.js';
import { envName } from './sources.js';

const cell = (s: string) => s.replace(/\|/g, '\\|');

function typeText(p: PropertyDef): string {
  if (p.type === 'enum' || (p.type === 'list' && p.allowed)) return `${p.type}: ${(p.allowed ?? []).join(', ')}`;
  return p.type;
}

function defaultText(p: PropertyDef): string {
  if (p.required) return '**required**';
  if (p.defaultNote) return p.defaultNote;
  if (p.default !== undefined) return p.default === '' ? '(empty)' : `\`${p.default}\``;
  return p.requiredNote ? `required ${p.requiredNote}` : '';
}

function notes(p: PropertyDef): string {
  const extra: string[] = [];
  if (p.requiredNote && (p.defaultNote || p.default !== undefined)) extra.push(`Required ${p.requiredNote}.`);
  if (p.aliases?.length)
    extra.push(
      `Alias: ${p.aliases.map((a) => `\`${a}\``).join(', ')} (deprecated Debezium name; accepted with a warning).`,
    );
  if (p.valueAliases)
    extra.push(
      `Accepts ${Object.entries(p.valueAliases)
        .map(([from, to]) => `\`${from}\` as \`${to}\``)
        .join(', ')}.`,
    );
  if (p.min !== undefined || p.max !== undefined)
    if (p.type === 'int' || p.type === 'long')
      extra.push(
        p.min === p.max
          ? `Must be ${p.min}.`
          : p.max !== undefined
            ? `Range ${p.min ?? ''}–${p.max}.`
            : `Minimum ${p.min}.`,
      );
  if (p.secret) extra.push('Secret: never printed.');
  return extra.length ? ` ${extra.join(' ')}` : '';
}

function harmlessText(p: PropertyDef): string {
  return (p.harmlessValues ?? []).map((v) => (v === '' ? '(empty)' : `\`${v}\``)).join(', ');
}

/** Markdown reference of every property, one table per group. Deterministic (compared against the committed file). */
export function renderConfigDocs(): string {
  const out: string[] = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/properties.ts by renderConfigDocs(). Do not edit; run `npm run docs`. -->',
    '',
    'Property names and defaults follow the Debezium MySQL connector wherever it has the property; our own',
    'settings (`sink.*`, `offset.storage.*`, `lease.*`, `aws.*`) follow Debezium Server naming.',
    '',
    '## Sources and precedence',
    '',
    '1. A config file (`--config`): `.json` (flat `"database.hostname"` keys or nested objects) or Java',
    '   `.properties` (`#`/`!` comments, `key=value` or `key: value`, `\\` line continuations, `\\uXXXX` escapes).',
    '2. Environment variables: `CDC_` + the name in upper case with `.` and `-` as `_`, e.g.',
    `   \`${envName('database.hostname')}\`. Pattern properties are mapped best effort (transform options need their`,
    '   name listed in `transforms`). Unknown `CDC_*` variables are errors; `CDC_TEST_*`, `CDC_IT_*` and',
    '   `CDC_COMPILED` (bin/cdc.js runs the compiled dist/) are ignored.',
    '3. `--set key=value` overrides.',
    '',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: documents the literal reference syntax
    'Later sources win. Values may reference `${env:VAR}` or `${file:/path}` (content without the trailing',
    'newline), which keeps passwords out of config files. With `database.secret.arn`, user and password (and host',
    'and port when not configured) come from that Secrets Manager secret (RDS JSON layout).',
    '',
    'Every mistake is reported at once, each with its property and a fix. Unknown properties get a',
    '"did you mean" suggestion. Secrets never appear in output, errors or logs.',
    '',
    '## Bringing a Debezium configuration',
    '',
    'An existing Debezium MySQL connector configuration can be used as it is:',
    '',
    '- Kafka Connect REST JSON (`{"name": "inventory-connector", "config": {...}}`, as POSTed to `/connectors`) is',
    '  read from `.json` files; the outer `name` becomes `name` unless `config` sets one.',
    '- Debezium Server `application.properties`: `debezium.source.*` keys lose their prefix;',
    '  `debezium.sink.type` becomes `sink.type`; `debezium.sink.kinesis.{region,endpoint}` become',
    '  `sink.kinesis.*` and, as in Debezium Server, each topic goes to the Kinesis stream of the same name',
    '  (`sink.kinesis.stream.name.template={topic}`) unless a stream name is configured;',
    '  `debezium.sink.kafka.producer.*` become `sink.kafka.*`; `debezium.format.{key,value}.schemas.enable` become',
    '  `{key,value}.converter.schemas.enable`; `debezium.transforms*` become `transforms*`. Other `debezium.*` and',
    '  `quarkus.*` keys are ignored.',
    '- Debezium 1.x names (`database.server.name`, `database.whitelist`, `table.blacklist`, `database.history*`, ...)',
    '  are accepted as aliases, with a warning suggesting the new name.',
    '- Kafka Connect, JDBC and Java-tuning settings are accepted and ignored: one start-up warning lists each such',
    '  key and why (see the table near the end). Settings that would change the captured data but are not',
    '  implemented are errors that say what to do instead. Misspelled names are still errors with a suggestion.',
    '',
  ];
  for (const g of GROUPS) {
    const props = PROPERTIES.filter((p) => p.group === g.id);
    if (props.length === 0) continue;
    if (g.id === 'ignored' || g.id === 'unsupported') {
      const ignored = g.id === 'ignored';
      out.push(
        `## ${g.title}`,
        '',
        g.intro,
        '',
        ignored ? '| Property | Why it is ignored |' : '| Property | What to do instead | Accepted value |',
        ignored ? '|---|---|' : '|---|---|---|',
      );
      for (const p of props)
        out.push(
          ignored
            ? `| \`${cell(p.name)}\` | ${cell(p.ignored ?? '')} |`
            : `| \`${cell(p.name)}\` | ${cell(p.unsupported ?? '')}${p.secret ? ' Secret: never printed.' : ''} | ${cell(harmlessText(p))} |`,
        );
      out.push('');
      continue;
    }
    out.push(`## ${g.title}`, '', g.intro, '', '| Property | Type | Default | Description |', '|---|---|---|---|');
    for (const p of props)
      out.push(
        `| \`${cell(p.name)}\` | ${cell(typeText(p))} | ${cell(defaultText(p))} | ${cell(p.description + notes(p))} |`,
      );
    out.push('');
  }
  return out.join('\n');
}

/** One paragraph about a property for `cdc --help <property>`; suggests a name when unknown. */
export function describeProperty(name: string): string {
  const m = findProperty(name);
  if (!m) {
    const guess = suggestProperty(name);
    return `${name}: unknown property.${guess ? ` Did you mean ${guess}?` : ''}`;
  }
  const p = m.def;
  const lines = [
    `${m.key}${m.alias ? ` (legacy name: ${m.alias})` : ''}`,
    `  ${p.description}`,
    `  type: ${typeText(p)}`,
  ];
  const d = defaultText(p);
  if (d) lines.push(`  default: ${d.replace(/\*\*|`/g, '')}`);
  if (p.requiredNote) lines.push(`  required ${p.requiredNote.replace(/`/g, '')}`);
  if (p.aliases?.length) lines.push(`  aliases: ${p.aliases.join(', ')}`);
  if (!p.pattern && !p.ignored && !p.unsupported) lines.push(`  env: ${envName(p.name)}`);
  if (p.secret) lines.push('  secret: never printed');
  if (p.ignored && !p.unsupported) lines.push(`  accepted and ignored: ${p.ignored}`);
  if (p.unsupported) lines.push(`  not supported: ${p.unsupported}`);
  return lines.join('\n');
}

/** `cdc transform`: apply a transform chain to records in the file sink's NDJSON form. */

import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { formatProblems } from '../../common/config-error.js';
import { errorMessage } from '../../common/errors.js';
import { parseOverrides, readConfigFile } from '../../config/sources.js';
import type { TransformChain } from '../../transforms/index.js';
import {
  buildChain,
  fromRecordLine,
  parseTransformsConfig,
  TransformConfigError,
  toRecordLine,
} from '../../transforms/index.js';
import { type CliIo, type Command, ExitCode, wantsHelp } from '../io.js';

const usage = `usage: cdc transform --config <file> [--set key=value]... [--input <file>] [--output <file>]

Applies the transforms configured in <file> (.properties or .json; only the transforms and transforms.* keys
are read, so a full connector configuration works too) to records in the file sink's NDJSON form
({"topic","key","value","headers"} per line), reading stdin and writing stdout unless --input/--output are given.

  cdc transform --config unwrap.properties < events.ndjson > flat.ndjson

Exit codes: 0 ok, 1 a line could not be read or transformed (its line number is printed), 2 bad configuration.
`;

export const transformCommand: Command = {
  name: 'transform',
  usage,
  async run(argv, io) {
    if (wantsHelp(argv)) {
      io.stdout.write(usage);
      return ExitCode.OK;
    }
    let values: { config?: string; set?: string[]; input?: string; output?: string };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: {
          config: { type: 'string', short: 'c' },
          set: { type: 'string', multiple: true },
          input: { type: 'string', short: 'i' },
          output: { type: 'string', short: 'o' },
        },
        strict: true,
      }));
    } catch (err) {
      io.stderr.write(`cdc transform: ${errorMessage(err)}\n\n${usage}`);
      return ExitCode.USAGE;
    }
    if (!values.config && !values.set?.length) {
      io.stderr.write(`cdc transform: --config <file> is required\n\n${usage}`);
      return ExitCode.USAGE;
    }
    const chain = loadChain(values.config, values.set ?? [], io);
    if (!chain) return ExitCode.USAGE;
    const input = values.input ? createReadStream(values.input) : process.stdin;
    const output = values.output ? createWriteStream(values.output) : io.stdout;
    try {
      return await transformStream(chain, input, output, io);
    } finally {
      if (values.output) {
        output.end();
        await once(output, 'finish');
      }
    }
  },
};

function loadChain(file: string | undefined, set: string[], io: CliIo): TransformChain | null {
  const raw: Record<string, string> = {};
  const problems = [];
  if (file) {
    const f = readConfigFile(file);
    problems.push(...f.problems);
    Object.assign(raw, f.values);
  }
  const o = parseOverrides(set);
  problems.push(...o.problems);
  Object.assign(raw, o.values);
  try {
    if (problems.length > 0) throw new TransformConfigError(problems);
    return buildChain(parseTransformsConfig(raw));
  } catch (err) {
    if (!(err instanceof TransformConfigError)) throw err;
    io.stderr.write(
      `cdc transform: ${formatProblems(err.problems).replace(/^Invalid configuration/, 'Invalid transforms')}\n`,
    );
    return null;
  }
}

/** Transform every line of `input` into `output`; blank lines are skipped. */
export async function transformStream(
  chain: TransformChain,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  io: Pick<CliIo, 'stderr'>,
): Promise<number> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let out = '';
    try {
      for (const r of chain.apply(fromRecordLine(line))) out += toRecordLine(r);
    } catch (err) {
      io.stderr.write(`cdc transform: line ${n}: ${errorMessage(err)}\n`);
      lines.close();
      return ExitCode.FAILURE;
    }
    if (out && !output.write(out)) await once(output, 'drain');
  }
  return ExitCode.OK;
}

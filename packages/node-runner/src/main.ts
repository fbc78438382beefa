// The `horizon` CLI entry point, for Node and Deno. Parses the command line, runs one command and
// exits with its code: 0 ok, 1 failed, 2 usage error. GPU errors print their remedy, not a stack.

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { closestMatch, echo, isInputError } from '@horizon/core';
import { isGpuError } from '@horizon/kernels';
import { type Command, EXIT, UsageError } from './cli/command.ts';
import { COMMANDS } from './cli/commands.ts';
import { commandUsage, usage } from './cli/usage.ts';

const out = (line: string) => console.log(line);
const err = (line: string) => console.error(line);

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? err : out)(usage(COMMANDS));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const guess = closestMatch(
      name,
      COMMANDS.map((c) => c.name),
    );
    err(`horizon: unknown command "${echo(name)}".${guess ? ` Did you mean "${guess}"?` : ''}\n`);
    err(usage(COMMANDS));
    return EXIT.usage;
  }
  const parsed = parseCommandLine(command, rest);
  if (typeof parsed === 'string') {
    err(`horizon ${command.name}: ${parsed}\n`);
    err(commandUsage(command));
    return EXIT.usage;
  }
  if (parsed.values.help) {
    out(commandUsage(command));
    return EXIT.ok;
  }
  try {
    return await command.run({ flags: parsed.values, positionals: parsed.positionals, out, err });
  } catch (error) {
    // A bad recipe, --set, run directory or checkpoint: one sentence, exit 2, nothing overwritten.
    if (error instanceof UsageError || isInputError(error)) {
      err(`horizon ${command.name}: ${error.message}`);
      return EXIT.usage;
    }
    if (isGpuError(error)) {
      err(`horizon ${command.name}: ${error.message}`);
      return EXIT.failed;
    }
    throw error;
  }
}

type Parsed = { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] };

/** Parses flags strictly; returns a one-line complaint (with a suggestion) instead of throwing. */
function parseCommandLine(command: Command, args: string[]): Parsed | string {
  const options = { ...command.flags, help: { type: 'boolean' as const, short: 'h' } };
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown) {
      const guess = closestMatch(unknown.replace(/^-+/, ''), Object.keys(options));
      return `unknown flag ${echo(unknown)}.${guess ? ` Did you mean --${guess}?` : ''}`;
    }
    // A value starting with "-" (log-probs always do) reads as another flag; say how to write it.
    const ambiguous = /Option '(-{1,2}[^']+)' argument is ambiguous/.exec(message)?.[1];
    if (ambiguous) {
      const name = Object.entries(options).find(([long, spec]) => `--${long}` === ambiguous || ('short' in spec && `-${spec.short}` === ambiguous))?.[0];
      const value = args[args.indexOf(ambiguous) + 1] ?? '-…';
      return `the value of ${ambiguous} starts with "-", so it reads as a flag; write it as --${name ?? ambiguous.replace(/^-+/, '')}=${echo(value)}.`;
    }
    return echo(message.split('\n')[0], 200);
  }
}

/** Runs the CLI as a process: exit code on success, a stack trace and exit 1 for a bug. */
export function runCli(argv: string[]): void {
  main(argv).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(EXIT.failed);
    },
  );
}

// Run only when this file is the program (`tsx main.ts`, `deno run main.ts`): the package's bin
// imports it and calls runCli itself, and matching the script name instead ran it twice.
const isEntryPoint = (() => {
  const meta = import.meta as ImportMeta & { main?: boolean };
  if (typeof meta.main === 'boolean') return meta.main; // Deno
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (isEntryPoint) runCli(process.argv.slice(2));

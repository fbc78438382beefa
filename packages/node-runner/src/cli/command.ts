// What a CLI command is: a name, a one-line summary, its flags (node:util parseArgs options, each
// with a description for the usage text) and a function returning the exit code.

import type { ParseArgsConfig } from 'node:util';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>[string] & { description: string; valueName?: string };

export interface CommandContext {
  flags: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  out: (line: string) => void;
  err: (line: string) => void;
}

export interface Command {
  name: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Names the positional arguments in the usage line, e.g. "[gae|ppo|kto]". */
  positionals?: string;
  run(ctx: CommandContext): Promise<number>;
}

/** Exit codes: 0 success, 1 the work failed (no GPU, a failed check), 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Thrown by commands for a bad argument value; printed as one sentence with exit code 2. */
export class UsageError extends Error {}

// The commands every sandbox shell has. An environment adds its own (run_tests, submit) and, when it
// wants those hacks attemptable, the simulated curl and git (commands/curl.ts, commands/git.ts).

import { FILE_COMMANDS } from './commands/files.ts';
import { FIND_COMMAND } from './commands/find.ts';
import { GREP_COMMAND } from './commands/grep.ts';
import { XARGS_COMMAND } from './commands/xargs.ts';
import { CommandRegistry, type ShellCommand } from './registry.ts';

/** ls, cat, head, wc, echo, rm, pwd, cd, grep, find, xargs. */
export const BUILTIN_COMMANDS: readonly ShellCommand[] = [...FILE_COMMANDS, GREP_COMMAND, FIND_COMMAND, XARGS_COMMAND];

/** A registry holding the built-in commands and then `extra` (an environment's own). */
export function shellRegistry(extra: readonly ShellCommand[] = []): CommandRegistry {
  return new CommandRegistry([...BUILTIN_COMMANDS, ...extra]);
}

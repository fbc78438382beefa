// Commands are a registry, so an environment adds its own beside the built-in ones: `run_tests`
// and `submit` for a coding task, a simulated `curl` or `git` with the task's pages and history.
// A command gets its arguments, its stdin and a context holding only what the shell lends it:
// capped stdout and stderr, the file system as seen (and recorded) under its name, the limits, the
// call's work budget, and a way to run another command (xargs). It returns an exit status.

import type { RecordingFs } from '../access-log.ts';
import type { OutputSink, ShellLimits, WorkBudget } from './limits.ts';

/** What a command run through the context produced. */
export interface CommandOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface CommandContext {
  /** The command's standard input (the previous pipeline stage's output, or a `<` file). */
  stdin: string;
  stdout: OutputSink;
  stderr: OutputSink;
  /** The sandbox's file system; every operation is recorded under this command's name. */
  fs: RecordingFs;
  limits: Readonly<ShellLimits>;
  /** The call's work budget: charge it for work proportional to input (bytes read, entries visited). */
  work: WorkBudget;
  /** Runs another command (as xargs does) and returns what it produced; capped like any command. */
  run(argv: readonly string[], stdin: string): Promise<CommandOutcome>;
}

export interface ShellCommand {
  /** The name the agent types: letters, digits, `_`, `-` and `.`. */
  readonly name: string;
  /** One line for `help` listings and the docs. */
  readonly summary: string;
  /** Runs with the arguments after the name; returns the exit status (0 for success). */
  run(args: readonly string[], ctx: CommandContext): number | Promise<number>;
}

const COMMAND_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export class CommandRegistry {
  private readonly commands = new Map<string, ShellCommand>();

  constructor(commands: readonly ShellCommand[] = []) {
    for (const command of commands) this.register(command);
  }

  /** Adds a command; a second command of the same name is an error unless `replace` is set. */
  register(command: ShellCommand, replace = false): this {
    if (!COMMAND_NAME.test(command.name))
      throw new Error(`The command name "${command.name}" must be letters, digits, "_", "-" or "." (no spaces or slashes).`);
    if (this.commands.has(command.name) && !replace) {
      throw new Error(`A command named "${command.name}" is already registered; pass replace = true to override it.`);
    }
    this.commands.set(command.name, command);
    return this;
  }

  get(name: string): ShellCommand | undefined {
    return this.commands.get(name);
  }

  /** Registered names, sorted. */
  names(): string[] {
    return [...this.commands.keys()].sort();
  }
}

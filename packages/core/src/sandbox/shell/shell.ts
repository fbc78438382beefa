// The interpreter: runs a parsed command line over the sandbox's file system with the commands of
// a registry, and returns what one tool call produced — stdout, stderr, an exit status, the access
// record and the commands it ran, so a monitor can judge the call by what it did rather than by its
// text. Semantics follow sh where they are cheap to follow: `&&`/`||`/`;`, pipelines whose status
// is the last command's, redirections applied left to right (`> f 2>&1` and `2>&1 > f` differ),
// `$(...)` run with the working directory restored afterwards (a subshell's `cd` does not leak),
// unquoted substitutions split on blanks, pathname expansion of unquoted wildcards.
// What differs, on purpose: pipeline stages run one after another on whole strings (there are no
// processes), so merged stdout and stderr are stdout then stderr rather than interleaved; a
// command that throws is reported as its failure (status 1) rather than ending the rollout; the
// call's work budget, once spent, stops the call with status 124 (timeout's code). The commands,
// limits and what is left out are listed in docs/sandbox.md.

import { type Access, AccessLog, RecordingFs } from '../access-log.ts';
import { escapeGlob, hasGlobChars } from '../glob.ts';
import type { VirtualFs } from '../virtual-fs.ts';
import { DEFAULT_SHELL_LIMITS, OutputSink, type ShellLimits, STEPS_PER_COMMAND, WorkBudget, WorkLimitExceeded } from './limits.ts';
import { type AndOr, type Pipeline, parseCommandLine, type Script, type SimpleCommand, type Word } from './parser.ts';
import { expandPathname } from './pathname-expansion.ts';
import type { CommandContext, CommandOutcome, CommandRegistry } from './registry.ts';

/** What one tool call produced. */
export interface ShellCallResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Every file-system operation the call made, in order (see access-log.ts). */
  accesses: Access[];
  /** Every command the call ran, as its argument vector after expansion, in order. */
  commands: string[][];
}

export interface ShellOptions {
  fs: VirtualFs;
  commands: CommandRegistry;
  limits?: Partial<ShellLimits>;
}

/** The state of one call: its record, budget and the commands it ran. */
interface CallState {
  log: AccessLog;
  work: WorkBudget;
  commands: string[][];
  /** How many commands are running inside one another now (xargs running a command is 2). */
  nesting: number;
}

const DEV_NULL = '/dev/null';

export class Shell {
  readonly fs: VirtualFs;
  readonly commands: CommandRegistry;
  readonly limits: Readonly<ShellLimits>;

  constructor(options: ShellOptions) {
    this.fs = options.fs;
    this.commands = options.commands;
    this.limits = { ...DEFAULT_SHELL_LIMITS, ...options.limits };
  }

  /** Runs one command line (one tool call). Never throws for anything the line contains. */
  async run(line: string): Promise<ShellCallResult> {
    const state: CallState = { log: new AccessLog(), work: new WorkBudget(this.limits.maxWorkSteps), commands: [], nesting: 0 };
    const stdout = new OutputSink(this.limits.maxCallOutputBytes);
    const stderr = new OutputSink(this.limits.maxCallOutputBytes);
    const parsed = parseCommandLine(line, this.limits);
    let exitCode: number;
    if (!parsed.ok) {
      stderr.write(`sh: ${parsed.error}\n`);
      exitCode = 2;
    } else {
      try {
        exitCode = await this.runScript(parsed.script, stdout, stderr, state);
      } catch (error) {
        if (!(error instanceof WorkLimitExceeded)) throw error;
        stderr.write(`sh: ${error.message}\n`);
        exitCode = 124;
      }
    }
    return { stdout: stdout.text(), stderr: stderr.text(), exitCode, accesses: state.log.entries, commands: state.commands };
  }

  private async runScript(script: Script, stdout: OutputSink, stderr: OutputSink, state: CallState): Promise<number> {
    let status = 0;
    for (const item of script.items) status = await this.runAndOr(item, stdout, stderr, state);
    return status;
  }

  private async runAndOr(item: AndOr, stdout: OutputSink, stderr: OutputSink, state: CallState): Promise<number> {
    let status = await this.runPipeline(item.first, stdout, stderr, state);
    for (const { op, pipeline } of item.rest) {
      if ((op === '&&') === (status === 0)) status = await this.runPipeline(pipeline, stdout, stderr, state);
    }
    return status;
  }

  private async runPipeline(pipeline: Pipeline, stdout: OutputSink, stderr: OutputSink, state: CallState): Promise<number> {
    let input = '';
    let status = 0;
    for (const [index, command] of pipeline.commands.entries()) {
      const outcome = await this.runSimple(command, input, stderr, state);
      status = outcome.exitCode;
      stderr.write(outcome.stderr);
      if (index === pipeline.commands.length - 1) stdout.write(outcome.stdout);
      else input = outcome.stdout;
    }
    return status;
  }

  private async runSimple(command: SimpleCommand, stdin: string, callStderr: OutputSink, state: CallState): Promise<CommandOutcome> {
    const argv: string[] = [];
    for (const word of command.words) argv.push(...(await this.expandWord(word, callStderr, state)));
    const name = argv[0] ?? 'sh';
    const shellFs = new RecordingFs(this.fs, state.log, name);
    // Redirections: each target is a file path, the call's pipe (`pipe`) or the command's stderr (`err`).
    type Target = { file: string; append: boolean } | 'pipe' | 'err' | 'null';
    let out: Target = 'pipe';
    let err: Target = 'err';
    for (const redirect of command.redirects) {
      if (redirect.op === '>&') {
        if (redirect.fd === 2) err = redirect.to === 1 ? out : err;
        else out = redirect.to === 2 ? err : out;
        continue;
      }
      const fields = await this.expandWord(redirect.target, callStderr, state);
      if (fields.length !== 1) return { stdout: '', stderr: `sh: ${fields.join(' ') || '""'}: ambiguous redirect\n`, exitCode: 1 };
      const path = fields[0];
      if (redirect.op === '<') {
        if (shellFs.resolve(path) === DEV_NULL) stdin = '';
        else {
          const read = shellFs.readFile(path);
          if (!read.ok) return { stdout: '', stderr: `sh: ${path}: ${read.message}\n`, exitCode: 1 };
          stdin = read.value;
        }
        continue;
      }
      const target: Target = shellFs.resolve(path) === DEV_NULL ? 'null' : { file: path, append: redirect.op === '>>' };
      // `>` truncates at once, as sh opens the file before the command runs.
      if (typeof target === 'object') {
        const opened = shellFs.writeFile(path, '', target.append);
        if (!opened.ok) return { stdout: '', stderr: `sh: ${path}: ${opened.message}\n`, exitCode: 1 };
      }
      if (redirect.fd === 2) err = target;
      else out = target;
    }
    const produced = argv.length === 0 ? { stdout: '', stderr: '', exitCode: 0 } : await this.invoke(argv, stdin, state);
    const result = { stdout: '', stderr: '', exitCode: produced.exitCode };
    for (const [text, target] of [
      [produced.stdout, out],
      [produced.stderr, err],
    ] as const) {
      if (target === 'pipe') result.stdout += text;
      else if (target === 'err') result.stderr += text;
      else if (target !== 'null' && text !== '') {
        const written = shellFs.writeFile(target.file, text, true);
        if (!written.ok) {
          result.stderr += `sh: ${target.file}: ${written.message}\n`;
          result.exitCode = 1;
        }
      }
    }
    return result;
  }

  /** Runs one command by its argument vector, with capped output; the registry's commands run only here. */
  private async invoke(argv: readonly string[], stdin: string, state: CallState): Promise<CommandOutcome> {
    state.work.charge(STEPS_PER_COMMAND);
    state.commands.push([...argv]);
    const [name, ...args] = argv;
    const command = this.commands.get(name);
    if (command === undefined) return { stdout: '', stderr: `sh: ${name}: command not found\n`, exitCode: 127 };
    if (state.nesting >= this.limits.maxCommandNesting) {
      return { stdout: '', stderr: `sh: ${name}: commands may run inside one another at most ${this.limits.maxCommandNesting} deep\n`, exitCode: 126 };
    }
    const stdout = new OutputSink(this.limits.maxCommandOutputBytes);
    const stderr = new OutputSink(this.limits.maxCommandOutputBytes);
    const ctx: CommandContext = {
      stdin,
      stdout,
      stderr,
      fs: new RecordingFs(this.fs, state.log, name),
      limits: this.limits,
      work: state.work,
      run: (inner, innerStdin) => this.invoke(inner, innerStdin, state),
    };
    let exitCode: number;
    state.nesting++;
    try {
      exitCode = await command.run(args, ctx);
    } catch (error) {
      if (error instanceof WorkLimitExceeded) throw error;
      stderr.write(`${name}: failed: ${error instanceof Error ? error.message : String(error)}\n`);
      exitCode = 1;
    } finally {
      state.nesting--;
    }
    return { stdout: stdout.text(), stderr: stderr.text(), exitCode };
  }

  /** A word's fields after substitution, splitting and pathname expansion. */
  private async expandWord(word: Word, stderr: OutputSink, state: CallState): Promise<string[]> {
    type Field = { text: string; pattern: string; glob: boolean };
    const fields: Field[] = [];
    let current: Field | undefined;
    const append = (text: string, globbable: boolean) => {
      current ??= { text: '', pattern: '', glob: false };
      current.text += text;
      current.pattern += globbable ? text : escapeGlob(text);
      if (globbable && hasGlobChars(text)) current.glob = true;
    };
    const endField = () => {
      if (current !== undefined) fields.push(current);
      current = undefined;
    };
    for (const part of word.parts) {
      if (part.kind === 'text') {
        append(part.text, !part.quoted);
        continue;
      }
      const output = (await this.substitute(part.script, stderr, state)).replace(/\n+$/, '');
      if (part.quoted) {
        append(output, false);
        continue;
      }
      // Unquoted: split on blanks; the pieces join the text around them at either end.
      const pieces = output.split(/[ \t\n]+/);
      pieces.forEach((piece, k) => {
        if (k > 0) endField();
        if (piece !== '') append(piece, false);
      });
    }
    endField();
    const out: string[] = [];
    for (const field of fields) {
      if (!field.glob) {
        out.push(field.text);
        continue;
      }
      const fs = new RecordingFs(this.fs, state.log, 'sh');
      const matches = expandPathname(field.pattern, fs, this.limits.maxFindVisits, state.work);
      out.push(...(matches.length > 0 ? matches : [field.text]));
    }
    return out;
  }

  /** Runs `$(script)` and returns its stdout; the working directory is put back afterwards. */
  private async substitute(script: Script, stderr: OutputSink, state: CallState): Promise<string> {
    const cwd = this.fs.cwd;
    const stdout = new OutputSink(this.limits.maxCommandOutputBytes);
    try {
      await this.runScript(script, stdout, stderr, state);
    } finally {
      this.fs.cwd = cwd;
    }
    return stdout.text();
  }
}

// xargs: builds command lines from its input and runs them through the shell's registry, so
// `find . -name '*.txt' | xargs cat` behaves as on a real system (and every file cat reads is in the
// access record under `cat`). Input is split on blanks and newlines with '...', "..." and \ quoting,
// or with -0 on NUL characters, or with -I on lines; -n N puts at most N arguments on each line; -r skips the run when the input
// is empty; the command defaults to echo. Fan-out is capped: at most ShellLimits.maxXargsArgs
// arguments read and maxXargsInvocations runs, past which xargs stops with a message. Statuses are
// GNU's: 123 when a run failed, 127 when the command does not exist. Left out: -d, -P, -L.

import type { ShellCommand } from '../registry.ts';
import { usage } from './files.ts';
import { countValue } from './options.ts';

/** Splits xargs input into arguments (GNU's default quoting), or says what is unbalanced. */
export function splitXargsInput(input: string): { ok: true; args: string[] } | { ok: false; error: string } {
  const args: string[] = [];
  let current = '';
  let started = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      if (started) args.push(current);
      current = '';
      started = false;
    } else if (c === "'" || c === '"') {
      const end = input.indexOf(c, i + 1);
      const newline = input.indexOf('\n', i + 1);
      if (end < 0 || (newline >= 0 && newline < end))
        return {
          ok: false,
          error: `xargs: unmatched ${c === "'" ? 'single' : 'double'} quote; by default quotes are special to xargs unless you use the -0 option`,
        };
      current += input.slice(i + 1, end);
      started = true;
      i = end;
    } else if (c === '\\' && i + 1 < input.length) {
      current += input[++i];
      started = true;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) args.push(current);
  return { ok: true, args };
}

const xargs: ShellCommand = {
  name: 'xargs',
  summary: 'run a command with arguments read from stdin: -n N per run, -I STR replace, -0 NUL-separated, -r none if empty',
  async run(args, ctx) {
    let perRun: number | undefined;
    let replace: string | undefined;
    let skipEmpty = false;
    let nulSeparated = false;
    let k = 0;
    for (; k < args.length && args[k].startsWith('-') && args[k] !== '-'; k++) {
      const arg = args[k];
      if (arg === '--') {
        k++;
        break;
      }
      if (arg === '-r' || arg === '--no-run-if-empty') skipEmpty = true;
      else if (arg === '-0' || arg === '--null') nulSeparated = true;
      else if (arg.startsWith('-n')) {
        const text = arg.length > 2 ? arg.slice(2) : args[++k];
        perRun = countValue(text ?? '');
        if (perRun === undefined || perRun === 0) return usage(ctx, `xargs: invalid number "${text ?? ''}" for -n option`, 1);
      } else if (arg.startsWith('-I')) {
        replace = arg.length > 2 ? arg.slice(2) : args[++k];
        if (replace === undefined) return usage(ctx, "xargs: option requires an argument -- 'I'", 1);
      } else return usage(ctx, `xargs: invalid option -- '${arg.slice(1)}'`, 1);
    }
    const template = args.slice(k).length > 0 ? args.slice(k) : ['echo'];
    let items: string[];
    if (nulSeparated) items = ctx.stdin.split('\0').filter((item) => item !== '');
    else if (replace !== undefined)
      items = ctx.stdin
        .split('\n')
        .map((line) => line.replace(/^[ \t]+/, ''))
        .filter((line) => line !== '');
    else {
      const split = splitXargsInput(ctx.stdin);
      if (!split.ok) return usage(ctx, split.error, 1);
      items = split.args;
    }
    if (items.length > ctx.limits.maxXargsArgs) {
      return usage(ctx, `xargs: the input has ${items.length} arguments; the sandbox's limit is ${ctx.limits.maxXargsArgs}`, 1);
    }
    ctx.work.charge(ctx.stdin.length);
    const runs: string[][] = [];
    if (replace !== undefined) {
      const token = replace;
      for (const item of items) runs.push(template.map((word) => word.split(token).join(item)));
    } else if (items.length === 0) {
      if (!skipEmpty) runs.push([...template]);
    } else {
      const size = perRun ?? items.length;
      for (let at = 0; at < items.length; at += size) runs.push([...template, ...items.slice(at, at + size)]);
    }
    let status = 0;
    for (const [index, argv] of runs.entries()) {
      if (index >= ctx.limits.maxXargsInvocations) {
        ctx.stderr.write(`xargs: stopped after ${ctx.limits.maxXargsInvocations} runs of ${template[0]} (the sandbox's limit)\n`);
        return 1;
      }
      const outcome = await ctx.run(argv, '');
      if (outcome.exitCode === 127 && outcome.stderr.startsWith('sh: ')) {
        ctx.stderr.write(`xargs: ${argv[0]}: No such file or directory\n`);
        return 127;
      }
      ctx.stdout.write(outcome.stdout);
      ctx.stderr.write(outcome.stderr);
      if (outcome.exitCode !== 0) status = 123;
    }
    return status;
  },
};

export const XARGS_COMMAND: ShellCommand = xargs;

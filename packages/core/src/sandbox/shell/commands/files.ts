// The file commands an agent explores and edits with: ls, cat, head, wc, echo, rm, pwd, cd. Their
// messages and exit statuses are GNU coreutils' (`cat: x: No such file or directory`, ls exiting 2),
// because a policy trained here should read a real shell's answers the same way. Simplified on
// purpose: `ls -l` prints mode, size and name only (no owners or dates: there are none); `echo -e`
// knows \n \t \\ only. `rm` exists because deleting (a test, say) is something an agent can try.

import type { RecordingFs } from '../../access-log.ts';
import { utf8Length } from '../../paths.ts';
import type { CommandContext, ShellCommand } from '../registry.ts';
import { countValue, parseOptions } from './options.ts';

/** Reads each operand (`-` or none: stdin) for a text filter; reports failures and returns status 1 if any. */
export function readOperands(name: string, operands: readonly string[], ctx: CommandContext): { inputs: { name: string; text: string }[]; status: number } {
  const inputs: { name: string; text: string }[] = [];
  let status = 0;
  for (const operand of operands.length === 0 ? ['-'] : operands) {
    if (operand === '-') {
      inputs.push({ name: '-', text: ctx.stdin });
      continue;
    }
    const read = ctx.fs.readFile(operand);
    if (!read.ok) {
      ctx.stderr.write(`${name}: ${operand}: ${read.message}\n`);
      status = 1;
      continue;
    }
    ctx.work.charge(read.value.length);
    inputs.push({ name: operand, text: read.value });
  }
  return { inputs, status };
}

/** The lines of `text` without their newlines (a final newline does not start another line). */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

const cat: ShellCommand = {
  name: 'cat',
  summary: 'print files (or stdin); -n numbers the lines',
  run(args, ctx) {
    const parsed = parseOptions('cat', args, { flags: 'n', long: { number: 'n' } });
    if (!parsed.ok) return usage(ctx, parsed.error, 1);
    const { inputs, status } = readOperands('cat', parsed.options.operands, ctx);
    let lineNumber = 0;
    for (const { text } of inputs) {
      if (ctx.stdout.full) break;
      if (!parsed.options.flags.has('n')) ctx.stdout.write(text);
      else for (const line of text.split(/(?<=\n)/)) if (line !== '') ctx.stdout.write(`${String(++lineNumber).padStart(6)}\t${line}`);
    }
    return status;
  },
};

const head: ShellCommand = {
  name: 'head',
  summary: 'print the first lines of files (or stdin); -n N (default 10)',
  run(args, ctx) {
    // `head -5` is `head -n 5`.
    const rewritten = args.map((a) => (/^-\d+$/.test(a) ? `-n${a.slice(1)}` : a));
    const parsed = parseOptions('head', rewritten, { flags: 'qv', valued: 'n', long: { lines: 'n', quiet: 'q', verbose: 'v' } });
    if (!parsed.ok) return usage(ctx, parsed.error, 1);
    const countText = parsed.options.values.get('n') ?? '10';
    const count = countValue(countText);
    if (count === undefined) return usage(ctx, `head: invalid number of lines: '${countText}'`, 1);
    const { inputs, status } = readOperands('head', parsed.options.operands, ctx);
    const headers = (inputs.length > 1 || parsed.options.flags.has('v')) && !parsed.options.flags.has('q');
    inputs.forEach(({ name, text }, k) => {
      if (headers) ctx.stdout.write(`${k > 0 ? '\n' : ''}==> ${name === '-' ? 'standard input' : name} <==\n`);
      let end = 0;
      for (let n = 0; n < count && end < text.length; n++) {
        const next = text.indexOf('\n', end);
        end = next < 0 ? text.length : next + 1;
      }
      ctx.stdout.write(text.slice(0, end));
    });
    return status;
  },
};

const wc: ShellCommand = {
  name: 'wc',
  summary: 'count lines, words and bytes; -l, -w, -c pick which',
  run(args, ctx) {
    const parsed = parseOptions('wc', args, { flags: 'lwcm', long: { lines: 'l', words: 'w', bytes: 'c', chars: 'm' } });
    if (!parsed.ok) return usage(ctx, parsed.error, 1);
    const chosen = ['l', 'w', 'c', 'm'].filter((f) => parsed.options.flags.has(f));
    const columns = chosen.length > 0 ? chosen : ['l', 'w', 'c'];
    const { inputs, status } = readOperands('wc', parsed.options.operands, ctx);
    const rows = inputs.map(({ name, text }) => {
      const counts: Record<string, number> = {
        l: text.split('\n').length - 1,
        w: text.split(/\s+/).filter((w) => w !== '').length,
        c: utf8Length(text),
        m: [...text].length,
      };
      return { name: name === '-' ? '' : name, values: columns.map((c) => counts[c]) };
    });
    if (rows.length > 1) rows.push({ name: 'total', values: columns.map((_, i) => rows.reduce((sum, r) => sum + r.values[i], 0)) });
    const fromStdin = parsed.options.operands.length === 0;
    const width = fromStdin && columns.length > 1 ? 7 : Math.max(1, ...rows.flatMap((r) => r.values.map((v) => String(v).length)));
    for (const row of rows) ctx.stdout.write(`${[...row.values.map((v) => String(v).padStart(width)), row.name].filter((s) => s !== '').join(' ')}\n`);
    return status;
  },
};

const echo: ShellCommand = {
  name: 'echo',
  summary: 'print the arguments; -n no newline, -e read \\n \\t \\\\ (with > or >>, how files are written)',
  run(args, ctx) {
    let newline = true;
    let escapes = false;
    let k = 0;
    for (; k < args.length && /^-[neE]+$/.test(args[k]); k++) {
      for (const f of args[k].slice(1)) {
        if (f === 'n') newline = false;
        else escapes = f === 'e';
      }
    }
    let text = args.slice(k).join(' ');
    if (escapes) text = text.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
    ctx.stdout.write(newline ? `${text}\n` : text);
    return 0;
  },
};

const rm: ShellCommand = {
  name: 'rm',
  summary: 'remove files; -r folders too, -f ignore missing ones',
  run(args, ctx) {
    const parsed = parseOptions('rm', args, { flags: 'rRf', long: { recursive: 'r', force: 'f' } });
    if (!parsed.ok) return usage(ctx, parsed.error, 1);
    const { flags, operands } = parsed.options;
    if (operands.length === 0 && !flags.has('f')) return usage(ctx, 'rm: missing operand', 1);
    let status = 0;
    for (const operand of operands) {
      const removed = ctx.fs.remove(operand, flags.has('r') || flags.has('R'));
      if (removed.ok || (flags.has('f') && removed.code === 'ENOENT')) continue;
      ctx.stderr.write(`rm: cannot remove '${operand}': ${removed.message}\n`);
      status = 1;
    }
    return status;
  },
};

const pwd: ShellCommand = {
  name: 'pwd',
  summary: 'print the working directory',
  run(_args, ctx) {
    ctx.stdout.write(`${ctx.fs.cwd}\n`);
    return 0;
  },
};

const cd: ShellCommand = {
  name: 'cd',
  summary: 'change the working directory (no argument: /)',
  run(args, ctx) {
    if (args.length > 1) return usage(ctx, 'sh: cd: too many arguments', 1);
    const changed = ctx.fs.changeDirectory(args[0] ?? '/');
    if (changed.ok) return 0;
    ctx.stderr.write(`sh: cd: ${args[0]}: ${changed.message}\n`);
    return 1;
  },
};

const ls: ShellCommand = {
  name: 'ls',
  summary: 'list folders; -a all (dotfiles, . and ..), -A almost all, -l long, -F mark folders with /',
  run(args, ctx) {
    const parsed = parseOptions('ls', args, { flags: 'aAlF1dp', long: { all: 'a', 'almost-all': 'A' } });
    if (!parsed.ok) return usage(ctx, parsed.error);
    const { flags } = parsed.options;
    const operands = parsed.options.operands.length > 0 ? parsed.options.operands : ['.'];
    let status = 0;
    const files: string[] = [];
    const dirs: string[] = [];
    for (const operand of operands) {
      const stat = ctx.fs.stat(operand);
      if (!stat.ok) {
        ctx.stderr.write(`ls: cannot access '${operand}': ${stat.message}\n`);
        status = 2;
      } else if (stat.value.kind === 'dir' && !flags.has('d')) dirs.push(operand);
      else files.push(operand);
    }
    const entryLine = (name: string, kind: 'file' | 'dir', size: number, path: string) => {
      const shown = kind === 'dir' && (flags.has('F') || flags.has('p')) ? `${name}/` : name;
      if (!flags.has('l')) return `${shown}\n`;
      const mode = kind === 'file' ? '-rw-r--r--' : ctx.fs.isProtected(path) ? 'd---------' : 'drwxr-xr-x';
      return `${mode} ${String(size).padStart(8)} ${shown}\n`;
    };
    for (const file of files) {
      const stat = ctx.fs.stat(file);
      if (stat.ok) ctx.stdout.write(entryLine(file, stat.value.kind, stat.value.kind === 'file' ? stat.value.size : 0, ctx.fs.resolve(file)));
    }
    dirs.forEach((dir, k) => {
      const listing = ctx.fs.list(dir);
      if (operands.length > 1) ctx.stdout.write(`${files.length > 0 || k > 0 ? '\n' : ''}${dir}:\n`);
      if (!listing.ok) {
        ctx.stderr.write(`ls: cannot open directory '${dir}': ${listing.message}\n`);
        status = 2;
        return;
      }
      ctx.work.charge(listing.value.length);
      const entries = listing.value.filter((e) => flags.has('a') || flags.has('A') || !e.name.startsWith('.'));
      const path = ctx.fs.resolve(dir);
      if (flags.has('a')) for (const dot of ['.', '..']) ctx.stdout.write(entryLine(dot, 'dir', 0, dot === '.' ? path : ctx.fs.resolve(`${dir}/..`)));
      for (const e of entries) ctx.stdout.write(entryLine(e.name, e.kind, e.size, childPath(ctx.fs, path, e.name)));
    });
    return status;
  },
};

function childPath(fs: RecordingFs, dir: string, name: string): string {
  return fs.resolve(`${dir}/${name}`);
}

/** Writes a usage error and returns its status (GNU ls and grep use 2, most others 1). */
export function usage(ctx: CommandContext, message: string, status = 2): number {
  ctx.stderr.write(`${message}\n`);
  return status;
}

/** ls, cat, head, wc, echo, rm, pwd, cd. */
export const FILE_COMMANDS: readonly ShellCommand[] = [ls, cat, head, wc, echo, rm, pwd, cd];

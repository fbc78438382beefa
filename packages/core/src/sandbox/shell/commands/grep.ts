// grep over files, folders (-r) or stdin, with GNU grep's output shape (`path:line:text`), exit
// statuses (0 a line selected, 1 none, 2 an error) and flags -r/-R, -n, -i, -l, -L, -c, -v, -h/-H,
// -q, -s, -F, -E, -e. Patterns go through line-pattern.ts, whose matcher cannot backtrack, and are
// at most ShellLimits.maxPatternChars long; the walk visits at most maxFindVisits entries.
// Left out: -o, -w, -x, -A/-B/-C context, --include/--exclude.

import type { WorkCounter } from '../../glob.ts';
import { compileLinePattern, type LinePattern } from '../../line-pattern.ts';
import type { CommandContext, ShellCommand } from '../registry.ts';
import { linesOf, usage } from './files.ts';
import { parseOptions } from './options.ts';
import { walk } from './walk.ts';

interface Selection {
  pattern: LinePattern;
  invert: boolean;
  lineNumbers: boolean;
  mode: 'lines' | 'names' | 'names-without' | 'count' | 'quiet';
  showNames: boolean;
}

/** Searches one text; returns whether any line was selected. */
function searchText(name: string, text: string, selection: Selection, ctx: CommandContext): boolean {
  let selected = 0;
  const counter: WorkCounter = ctx.work;
  const lines = linesOf(text);
  for (let k = 0; k < lines.length; k++) {
    const hit = selection.pattern.test(lines[k], counter) !== selection.invert;
    ctx.work.check();
    if (!hit) continue;
    selected++;
    if (selection.mode === 'quiet' || selection.mode === 'names' || selection.mode === 'names-without') break;
    if (selection.mode === 'lines') {
      ctx.stdout.write(`${selection.showNames ? `${name}:` : ''}${selection.lineNumbers ? `${k + 1}:` : ''}${lines[k]}\n`);
      if (ctx.stdout.full) break;
    }
  }
  if (selection.mode === 'names' && selected > 0) ctx.stdout.write(`${name}\n`);
  if (selection.mode === 'names-without' && selected === 0) ctx.stdout.write(`${name}\n`);
  if (selection.mode === 'count') ctx.stdout.write(`${selection.showNames ? `${name}:` : ''}${selected}\n`);
  return selected > 0;
}

const grep: ShellCommand = {
  name: 'grep',
  summary: 'search lines for a pattern: -r recurse, -n numbers, -i no case, -l names only, -v invert, -c count, -F fixed, -E extended',
  run(args, ctx) {
    const parsed = parseOptions('grep', args, {
      flags: 'rRnilLcvhHqsFEG',
      valued: 'e',
      long: {
        recursive: 'r',
        'line-number': 'n',
        'ignore-case': 'i',
        'files-with-matches': 'l',
        'files-without-match': 'L',
        count: 'c',
        'invert-match': 'v',
        'no-filename': 'h',
        'with-filename': 'H',
        quiet: 'q',
        silent: 'q',
        'no-messages': 's',
        'fixed-strings': 'F',
        'extended-regexp': 'E',
        'basic-regexp': 'G',
        regexp: 'e',
      },
    });
    if (!parsed.ok) return usage(ctx, parsed.error);
    const { flags, values } = parsed.options;
    const operands = [...parsed.options.operands];
    const source = values.get('e') ?? operands.shift();
    if (source === undefined) return usage(ctx, 'Usage: grep [OPTION]... PATTERNS [FILE]...');
    if (source.length > ctx.limits.maxPatternChars)
      return usage(ctx, `grep: the pattern is ${source.length} characters long; the sandbox's limit is ${ctx.limits.maxPatternChars}`);
    const syntax = flags.has('F') ? 'fixed' : flags.has('E') ? 'extended' : 'basic';
    const compiled = compileLinePattern(source, syntax, flags.has('i'));
    if (!compiled.ok) return usage(ctx, `grep: ${compiled.error}`);
    const recursive = flags.has('r') || flags.has('R');
    const mode = flags.has('q') ? 'quiet' : flags.has('l') ? 'names' : flags.has('L') ? 'names-without' : flags.has('c') ? 'count' : 'lines';
    const implicitDot = recursive && operands.length === 0;
    const targets = operands.length > 0 ? operands : recursive ? ['.'] : ['-'];
    const selection: Selection = {
      pattern: compiled.pattern,
      invert: flags.has('v'),
      lineNumbers: flags.has('n'),
      mode,
      showNames: flags.has('H') || (!flags.has('h') && (recursive || targets.length > 1)),
    };
    let found = false;
    let failed = false;
    const complain = (text: string) => {
      failed = true;
      if (!flags.has('s')) ctx.stderr.write(`grep: ${text}\n`);
    };
    for (const target of targets) {
      if (found && mode === 'quiet') break;
      if (target === '-') {
        found = searchText('(standard input)', ctx.stdin, selection, ctx) || found;
        continue;
      }
      const stat = ctx.fs.stat(target);
      if (!stat.ok) {
        complain(`${target}: ${stat.message}`);
        continue;
      }
      if (stat.value.kind === 'dir' && !recursive) {
        complain(`${target}: Is a directory`);
        continue;
      }
      const completed = walk(
        ctx.fs,
        target,
        stat.value.kind,
        { maxVisits: ctx.limits.maxFindVisits, work: ctx.work, onError: (shown, message) => complain(`${shown}: ${message}`) },
        (entry) => {
          if (entry.kind !== 'file' || (found && mode === 'quiet')) return;
          const shown = implicitDot ? entry.shown.replace(/^\.\//, '') : entry.shown;
          const read = ctx.fs.readFile(entry.shown);
          if (!read.ok) complain(`${shown}: ${read.message}`);
          else found = searchText(shown, read.value, selection, ctx) || found;
        },
      );
      if (!completed) complain(`stopped after visiting ${ctx.limits.maxFindVisits} entries (the sandbox's limit)`);
    }
    if (found && mode === 'quiet') return 0;
    return failed ? 2 : found ? 0 : 1;
  },
};

export const GREP_COMMAND: ShellCommand = grep;

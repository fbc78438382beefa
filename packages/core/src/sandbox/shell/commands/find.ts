// find over the sandbox: starting points, then tests combined by "and" — `-name` / `-iname` (a
// glob on the last component, by glob.ts's linear-time matcher, where `*` also matches a leading
// dot as GNU find's does), `-path` (a glob on the whole shown path), `-type f|d`, `-maxdepth N`,
// `-mindepth N`, `!` / `-not` before a test, `-print`, and `-print0` (NUL after each path, for xargs -0). Output and messages are GNU find's; a
// protected folder is printed (its parent lists it) and then reported: `find: './.eval': Permission
// denied`. At most ShellLimits.maxFindVisits entries are visited. Left out: `-o`, parentheses,
// `-exec` (pipe into xargs instead), `-size`, `-newer`.

import { type CompiledGlob, compileGlob, matchGlob } from '../../glob.ts';
import { baseName } from '../../paths.ts';
import type { ShellCommand } from '../registry.ts';
import { usage } from './files.ts';
import { countValue } from './options.ts';
import { type WalkEntry, walk } from './walk.ts';

type Test = { negated: boolean } & (
  | { kind: 'name'; glob: CompiledGlob; caseless: boolean }
  | { kind: 'path'; glob: CompiledGlob }
  | { kind: 'type'; type: 'file' | 'dir' }
);

const find: ShellCommand = {
  name: 'find',
  summary: 'walk folders: find [PATH...] [-name GLOB] [-iname GLOB] [-path GLOB] [-type f|d] [-maxdepth N] [-mindepth N] [!] [-print0]',
  run(args, ctx) {
    let k = 0;
    const starts: string[] = [];
    while (k < args.length && !args[k].startsWith('-') && args[k] !== '!') starts.push(args[k++]);
    const tests: Test[] = [];
    let maxDepth: number | undefined;
    let minDepth = 0;
    let negated = false;
    let separator = '\n';
    while (k < args.length) {
      const arg = args[k++];
      if (arg === '!' || arg === '-not') {
        negated = !negated;
        continue;
      }
      if (arg === '-print' || arg === '-print0') {
        if (arg === '-print0') separator = '\0';
        continue;
      }
      const value = args[k++];
      if (value === undefined) return usage(ctx, `find: missing argument to \`${arg}'`, 1);
      if (arg === '-name' || arg === '-iname') tests.push({ negated, kind: 'name', glob: compileGlob(value), caseless: arg === '-iname' });
      else if (arg === '-path' || arg === '-wholename') tests.push({ negated, kind: 'path', glob: compileGlob(value) });
      else if (arg === '-type') {
        if (value !== 'f' && value !== 'd') return usage(ctx, `find: Unknown argument to -type: ${value} (this sandbox has only f and d)`, 1);
        tests.push({ negated, kind: 'type', type: value === 'f' ? 'file' : 'dir' });
      } else if (arg === '-maxdepth' || arg === '-mindepth') {
        const depth = countValue(value);
        if (depth === undefined) return usage(ctx, `find: Expected a positive decimal integer argument to ${arg}, but got \`${value}'`, 1);
        if (arg === '-maxdepth') maxDepth = depth;
        else minDepth = depth;
      } else return usage(ctx, `find: unknown predicate \`${arg}'`, 1);
      negated = false;
    }
    const passes = (entry: WalkEntry) =>
      entry.depth >= minDepth &&
      tests.every((test) => {
        const hit =
          test.kind === 'type'
            ? entry.kind === test.type
            : test.kind === 'name'
              ? matchGlob(test.glob, baseName(entry.shown) || entry.shown, { dot: true, caseless: test.caseless }, ctx.work)
              : matchGlob(test.glob, entry.shown, { dot: true }, ctx.work);
        return hit !== test.negated;
      });
    let status = 0;
    for (const start of starts.length > 0 ? starts : ['.']) {
      const stat = ctx.fs.stat(start);
      if (!stat.ok) {
        ctx.stderr.write(`find: '${start}': ${stat.message}\n`);
        status = 1;
        continue;
      }
      const completed = walk(
        ctx.fs,
        start,
        stat.value.kind,
        {
          maxDepth,
          maxVisits: ctx.limits.maxFindVisits,
          work: ctx.work,
          onError: (shown, message) => {
            ctx.stderr.write(`find: '${shown}': ${message}\n`);
            status = 1;
          },
        },
        (entry) => {
          if (passes(entry)) ctx.stdout.write(`${entry.shown}${separator}`);
        },
      );
      if (!completed) {
        ctx.stderr.write(`find: stopped after visiting ${ctx.limits.maxFindVisits} entries (the sandbox's limit)\n`);
        return 1;
      }
    }
    return status;
  },
};

export const FIND_COMMAND: ShellCommand = find;

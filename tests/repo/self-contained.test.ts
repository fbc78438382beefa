// The repository documents itself (docs/conventions.md §6, §14): code and docs may point only at
// files inside it, so a fresh clone has no dead references. Pure TypeScript over `git ls-files`:
//   (a) no path into the machine this was written on: `../shared`, `/work/`;
//   (b) every mention of a markdown file (`DESIGN.md`, `docs/ui.md`, `reference/x.md`, …) names a
//       tracked file, relative to the mentioning file, to the repository root, or (bare) to docs/;
//       a file in another repository is written `owner/repo:path/file.md` (or as a URL) and skipped;
//   (c) every relative markdown link `[text](path)` in a *.md file points at a tracked file or folder;
//   (d) every `docs/…` path mentioned outside markdown exists;
//   (e) no bare "issue N": the project's issue numbers do not resolve in a clone (say what the issue
//       said, or point into docs/); another project's issue names that project ("TRL issue #2772").
// Skipped: the lockfile, fixtures, binary files, and this file (it spells the patterns it hunts).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = 'tests/repo/self-contained.test.ts';

export interface Finding {
  file: string;
  line: number;
  check: 'a' | 'b' | 'c' | 'd' | 'e';
  text: string;
  why: string;
}

const SKIPPED = [/(^|\/)node_modules\//, /^pnpm-lock\.yaml$/, /(^|\/)fixtures\//, /\.(png|jpe?g|gif|ico|webp|woff2?|ttf|wasm|node|xz|gz|zip|pdf)$/i];

// Built from pieces so that this file does not match its own patterns.
const MACHINE_PATHS = new RegExp(['\\.\\./shar', 'ed\\b|/wor', 'k/'].join(''));
const MD_MENTION = /(?<![\w@:/.-])((?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-][\w.-]*\.md)(?![\w/-])/g;
const MD_LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const DOCS_PATH = /(?<![\w./:@-])(docs\/(?:[\w.-]+\/)*[\w-]+(?:\.\w+)?)/g;
const URL = /\b(?:https?|file):\/\/\S+/g;
// "issue 11", "issues 3 and 4", "Issue #5", unless a project's name (or owner/repo) comes right before.
const ISSUE_NUMBER = /(?<!\b(?:TRL|verl|slime|OpenRLHF|vLLM|SGLang|Dawn|pnpm|vitest|Vite|tfjs|jax-js|[\w-]+\/[\w.-]+)\s)\b[Ii]ssues? #?\d+/g;

/** Tracked files and the folders that hold them. */
function pathSet(files: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const f of files) {
    set.add(f);
    for (let d = dirname(f); d !== '.' && !set.has(d); d = dirname(d)) set.add(d);
  }
  return set;
}

/** A repository path for `target` seen from `from`'s folder, or undefined when it leaves the repository. */
function relativeTo(from: string, target: string): string | undefined {
  const p = normalize(join(dirname(from), target));
  return p.startsWith('..') ? undefined : p.replace(/\/$/, '');
}

/** All findings for `files` (repository path → text), given the set of tracked paths. */
export function findDeadReferences(files: ReadonlyMap<string, string>, tracked: ReadonlySet<string>): Finding[] {
  const out: Finding[] = [];
  const exists = (p: string | undefined) => p !== undefined && tracked.has(p);
  for (const [file, text] of files) {
    const isMd = file.endsWith('.md');
    text.split('\n').forEach((raw, i) => {
      const line = i + 1;
      const add = (check: Finding['check'], found: string, why: string) => out.push({ file, line, check, text: found, why });
      const m = raw.match(MACHINE_PATHS);
      if (m) add('a', m[0], 'a path outside the repository');
      const noUrls = raw.replace(URL, ' ');
      for (const [, mention] of noUrls.matchAll(MD_MENTION)) {
        const ok = exists(relativeTo(file, mention)) || exists(normalize(mention)) || (!mention.includes('/') && exists(`docs/${mention}`));
        if (!ok) add('b', mention, 'no such markdown file in the repository');
      }
      for (const [found] of noUrls.matchAll(ISSUE_NUMBER)) add('e', found, 'an issue number does not resolve in a clone');
      if (isMd) {
        for (const [, target] of raw.matchAll(MD_LINK)) {
          if (/^([a-z][\w+.-]*:|#|\/)/i.test(target)) continue;
          const path = decodeURI(target.replace(/[#?].*$/, ''));
          if (path === '') continue;
          if (!exists(relativeTo(file, path))) add('c', target, 'the link target is not in the repository');
        }
      } else {
        for (const [, mention] of noUrls.matchAll(DOCS_PATH)) {
          if (!exists(mention)) add('d', mention, 'no such file or folder under docs/');
        }
      }
    });
  }
  return out;
}

function trackedTextFiles(): { files: Map<string, string>; tracked: Set<string> } {
  const all = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  const files = new Map<string, string>();
  for (const f of all) {
    if (f === SELF || SKIPPED.some((re) => re.test(f))) continue;
    let text: string;
    try {
      text = readFileSync(join(ROOT, f), 'utf8');
    } catch {
      continue; // deleted in the working tree: nothing to read
    }
    if (text.includes('\0')) continue; // binary
    files.set(f, text);
  }
  return { files, tracked: pathSet(all) };
}

const report = (findings: Finding[]) => findings.map((f) => `${f.file}:${f.line} (${f.check}) ${f.text} — ${f.why}`).join('\n');

describe('the repository refers only to itself', () => {
  it('has no dead references in tracked files', () => {
    const { files, tracked } = trackedTextFiles();
    expect(files.size).toBeGreaterThan(100);
    const findings = findDeadReferences(files, tracked);
    // On failure: point each at a file in the repository, or write owner/repo:path for another repository.
    expect(report(findings)).toBe('');
  });

  it('catches each kind of planted bad reference, and accepts the good ones', () => {
    const tracked = pathSet(['README.md', 'docs/design.md', 'docs/algorithms/README.md', 'packages/kernels/src/rl/gae/gae.ref.ts', 'src/a.ts']);
    const files = new Map([
      [
        'src/a.ts',
        [
          '// see ../shared/x',
          '// (DESIGN.md §5)',
          '// docs/design.md §5 and docs/missing.md',
          '// THUDM/slime:docs/en/x.md',
          '// https://example.com/a/b.md',
          '// docs/nothing/here',
          '// as issue 11 asked; TRL issue #2772 and huggingface/trl issue 12 are fine',
        ].join('\n'),
      ],
      [
        'docs/algorithms/README.md',
        [
          '[ok](../../packages/kernels/src/rl/gae/gae.ref.ts) [ok](../design.md#5) [web](https://x.org/a.md)',
          '[bad](../../packages/kernels/src/rl/gae/nope.ts)',
          'read reference/webgpu-ml.md',
        ].join('\n'),
      ],
    ]);
    const found = findDeadReferences(files, tracked).map((f) => `${f.file}:${f.line}:${f.check}:${f.text}`);
    expect(found).toEqual([
      'src/a.ts:1:a:../shared',
      'src/a.ts:2:b:DESIGN.md',
      'src/a.ts:3:b:docs/missing.md',
      'src/a.ts:3:d:docs/missing.md',
      'src/a.ts:6:d:docs/nothing/here',
      'src/a.ts:7:e:issue 11',
      'docs/algorithms/README.md:2:c:../../packages/kernels/src/rl/gae/nope.ts',
      'docs/algorithms/README.md:3:b:reference/webgpu-ml.md',
    ]);
  });
});

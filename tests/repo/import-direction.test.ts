// The workspace's dependency direction, checked on every import and export-from specifier under
// packages/*/src: kernels ← core ← front ends (node-runner, web-ui). Kernels import no other
// package; core imports no front end and, outside its tests, nothing that exists only in Node or
// Deno (core runs unchanged in the browser); the two front ends do not import each other; and no
// relative path reaches into another package's folder (that would bypass its `exports`).
// Pure TypeScript over the source text: no GPU, no subprocess, well under a second.

import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['kernels', 'core', 'node-runner', 'web-ui'] as const;
type Package = (typeof PACKAGES)[number];

/** Which workspace packages each package may import (besides itself). */
const MAY_IMPORT: Record<Package, readonly Package[]> = {
  kernels: [],
  core: ['kernels'],
  'node-runner': ['kernels', 'core'],
  'web-ui': ['kernels', 'core'],
};

const NODE_BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));
/** Modules that exist only in Node or Deno, beside the builtins: Dawn's addon, jsr and URL imports. */
function runtimeOnly(specifier: string): boolean {
  if (specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0])) return true;
  return specifier === 'webgpu' || specifier.startsWith('jsr:') || /^https?:/.test(specifier);
}

const isTestFile = (path: string) => /\.test\.ts$/.test(path) || path.split(sep).includes('testing');

/**
 * Every module specifier of import/export declarations, side-effect imports and dynamic
 * `import('…')` / `typeof import('…')` in `source`. Comments, string contents, template literals
 * and regex literals are skipped, so an `import` written inside a string (a bundler entry, WGSL,
 * a message) is not mistaken for one.
 */
export function importSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  // `code` mirrors `source` with comments and literal contents blanked, for the keyword test.
  let code = '';
  let i = 0;
  const n = source.length;
  let lastSignificant = '';
  while (i < n) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      code += ' '.repeat(stop - i);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      code += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      const value = source.slice(i + 1, j);
      if (/(?:^|[^.\w$])(?:from|import)\s*\(?\s*$/.test(code.slice(-64)) && /(?:^|[^.\w$])(?:import|export)\b/.test(statementBefore(code))) {
        specifiers.push(value);
      }
      code += `${c}${' '.repeat(j - i - 1)}${c}`;
      i = j + 1;
      lastSignificant = c;
    } else if (c === '`') {
      let j = i + 1;
      let depth = 0;
      while (j < n && !(source[j] === '`' && depth === 0)) {
        if (source[j] === '\\') j++;
        else if (source[j] === '$' && source[j + 1] === '{') depth++;
        else if (source[j] === '}' && depth > 0) depth--;
        j++;
      }
      code += `\`${source.slice(i + 1, j).replace(/[^\n]/g, ' ')}\``;
      i = j + 1;
      lastSignificant = '`';
    } else if (
      c === '/' &&
      (lastSignificant === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastSignificant) || /\b(?:return|typeof|case|of|in)\s*$/.test(code.slice(-16)))
    ) {
      // A regex literal (a division follows a value, which none of the above is).
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== '\n' && (inClass || source[j] !== '/')) {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j++;
      }
      code += `/${' '.repeat(j - i - 1)}/`;
      i = j + 1;
      lastSignificant = '/';
    } else {
      code += c;
      if (!/\s/.test(c)) lastSignificant = c;
      i++;
    }
  }
  return specifiers;
}

/** The text since the end of the previous statement (`;` or `}` at the start of a line). */
function statementBefore(code: string): string {
  const cut = Math.max(code.lastIndexOf(';'), code.lastIndexOf('}\n'));
  return code.slice(cut + 1);
}

interface SourceFile {
  /** Path from the repository root, with `/`. */
  path: string;
  text: string;
}

/** One sentence per import that runs against the direction. */
export function directionViolations(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const [top, from] = file.path.split('/');
    if (top !== 'packages' || !PACKAGES.includes(from as Package)) continue;
    const pkg = from as Package;
    for (const spec of importSpecifiers(file.text)) {
      let target: string | undefined;
      if (spec.startsWith('.')) {
        const landed = relative(ROOT, resolve(ROOT, dirname(file.path), spec)).split(sep);
        if (landed[0] !== 'packages' || landed[1] !== pkg) {
          out.push(`${file.path} imports '${spec}', a relative path out of packages/${pkg}; import the package by name instead`);
          continue;
        }
      } else if (spec.startsWith('@horizon/')) {
        target = spec.slice('@horizon/'.length).split('/')[0];
      }
      if (target !== undefined && target !== pkg && !MAY_IMPORT[pkg].includes(target as Package)) {
        const allowed = MAY_IMPORT[pkg].join(' and ') || 'no other workspace package';
        out.push(`${file.path} imports '${spec}', against the direction kernels ← core ← front ends (${pkg} may import ${allowed})`);
      }
      if (pkg === 'core' && !isTestFile(file.path) && runtimeOnly(spec)) {
        out.push(`${file.path} imports '${spec}', which exists only in Node or Deno; core must run in the browser (do it in a front end and pass it in)`);
      }
    }
  }
  return out;
}

function sourceFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push({ path, text: readFileSync(join(ROOT, path), 'utf8') });
    }
  };
  for (const pkg of PACKAGES) walk(`packages/${pkg}/src`);
  return files;
}

describe('import direction: kernels ← core ← front ends', () => {
  it('holds for every import under packages/*/src', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    // The scanner sees the imports at all: most files import something.
    expect(files.filter((f) => importSpecifiers(f.text).length > 0).length).toBeGreaterThan(files.length * 0.8);
    expect(directionViolations(files)).toEqual([]);
  });

  it('reads specifiers from declarations only, not from strings, comments or regexes', () => {
    const source = [
      "import type { A } from '@horizon/kernels';",
      "import {\n  b,\n  c,\n} from './b.ts';",
      "export * from './c.ts';",
      'export { d } from "./d.ts";',
      "import './side-effect.ts';",
      "const m = await import('./lazy.ts');",
      "type T = typeof import('@tensorflow/tfjs-core');",
      'const entry = ["export * from \'@tensorflow/tfjs-core\';", \'import x from "y";\'];',
      "// import { z } from 'commented';",
      "/* export * from 'block-commented'; */",
      "const wgsl = `import from 'template'`;",
      "const re = /from '[a-z]+'/g; const half = 1 / 2; const s = Array.from('abc');",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['@horizon/kernels', './b.ts', './c.ts', './d.ts', './side-effect.ts', './lazy.ts', '@tensorflow/tfjs-core']);
  });

  it('reports each kind of bad import (planted)', () => {
    const planted: SourceFile[] = [
      { path: 'packages/kernels/src/x.ts', text: "import { Gpt } from '@horizon/core';" },
      { path: 'packages/kernels/src/y.ts', text: "export { run } from '@horizon/node-runner/bench/table';" },
      { path: 'packages/core/src/x.ts', text: "import { runCli } from '@horizon/node-runner';" },
      { path: 'packages/core/src/y.ts', text: "import { readFileSync } from 'node:fs';" },
      { path: 'packages/core/src/z.ts', text: "import path from 'path';\nconst gpu = await import('webgpu');" },
      { path: 'packages/core/src/w.ts', text: "import { x } from '../../kernels/src/index.ts';" },
      { path: 'packages/web-ui/src/x.ts', text: "import { main } from '@horizon/node-runner';" },
      { path: 'packages/node-runner/src/x.ts', text: "import { app } from '@horizon/web-ui';" },
      { path: 'packages/node-runner/src/y.ts', text: "import { x } from '../../../tools/bench/rl-kernels.ts';" },
    ];
    const found = directionViolations(planted);
    expect(found).toHaveLength(10);
    for (const file of planted) expect(found.some((v) => v.startsWith(file.path))).toBe(true);
    // What is allowed stays allowed: core's tests may use Node, front ends import core and kernels.
    const fine: SourceFile[] = [
      { path: 'packages/core/src/a.test.ts', text: "import { mkdtempSync } from 'node:fs';" },
      { path: 'packages/core/src/b.ts', text: "import { Gpu } from '@horizon/kernels';\nimport { z } from 'zod';\nimport { c } from './model/c.ts';" },
      { path: 'packages/node-runner/src/a.ts', text: "import { Trainer } from '@horizon/core';\nimport fs from 'node:fs';" },
      { path: 'packages/web-ui/src/a.ts', text: "import { Trainer } from '@horizon/core';\nimport { acquire } from '@horizon/kernels/navigator';" },
    ];
    expect(directionViolations(fine)).toEqual([]);
  });
});

// A run directory: everything one `horizon train` run writes, in one place.
//
//   runs/<recipe>-<YYYYMMDD-HHMMSS>/
//     metrics.jsonl          line 1 the resolved recipe, then one line per step (core/metrics/jsonl.ts)
//     samples.jsonl          a few rollouts per iteration, for `horizon sample` and the UI's replay
//     checkpoints/step-N/    policy/critic/reference/optimizer .safetensors, state.json, COMMIT
//     lock                   while a `horizon train` writes here: its pid, host and start (run-lock.ts)
//
// Names use UTC so two machines name the same moment alike. A new run never reuses a directory
// that has anything in it: nothing a previous run wrote is overwritten.

import { constants } from 'node:fs';
import { access, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '@horizon/core';
import { shortPath } from './fs-errors.ts';

export interface RunPaths {
  dir: string;
  metrics: string;
  samples: string;
  checkpoints: string;
}

export function runPaths(dir: string): RunPaths {
  return { dir, metrics: join(dir, 'metrics.jsonl'), samples: join(dir, 'samples.jsonl'), checkpoints: join(dir, 'checkpoints') };
}

/** "add-ppo-20250314-092653" */
export function runDirName(recipeName: string, now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${recipeName}-${stamp}`;
}

/** What is at `dir`: nothing, an empty directory, a directory with files, or not a directory. */
async function inspectDir(dir: string): Promise<'missing' | 'empty' | 'full' | 'not-dir'> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) return 'not-dir';
    return (await readdir(dir)).length === 0 ? 'empty' : 'full';
  } catch (error) {
    // ENOTDIR: something above it is a file, so it cannot exist (checkCreatable names the file).
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

/** The nearest ancestor of `dir` that exists must be a directory we may write in. */
async function checkCreatable(dir: string, shown: string): Promise<void> {
  let parent = dirname(dir);
  for (;;) {
    const kind = await inspectDir(parent);
    if (kind === 'not-dir')
      throw new InputError('run', `cannot create run directory ${shortPath(shown)}: ${shortPath(parent)} is a file, not a directory; choose another --out.`);
    if (kind !== 'missing') break;
    if (dirname(parent) === parent) return;
    parent = dirname(parent);
  }
  await access(parent, constants.W_OK);
}

/**
 * Picks the directory a new run will write, without creating anything: `out` if given (it must be
 * missing or empty, under a directory we can write), else `<root>/<recipe>-<time>` (with -2, -3, …
 * if that name is taken). Node's errors (ENAMETOOLONG, EROFS, …) propagate for train.ts to word.
 */
export async function planRunDir(options: { recipeName: string; out?: string; root?: string; now?: Date }): Promise<RunPaths> {
  let dir: string;
  if (options.out !== undefined) {
    dir = resolve(options.out);
    const kind = await inspectDir(dir);
    if (kind === 'not-dir') throw new InputError('run', `--out ${shortPath(options.out)} is a file, not a directory; choose another --out.`);
    if (kind === 'full')
      throw new InputError(
        'run',
        `run directory ${shortPath(options.out)} already exists and is not empty; choose another --out, or continue it with --resume ${shortPath(options.out)}.`,
      );
    if (kind === 'missing') await checkCreatable(dir, options.out);
    else await access(dir, constants.W_OK);
  } else {
    const base = join(resolve(options.root ?? 'runs'), runDirName(options.recipeName, options.now ?? new Date()));
    dir = base;
    for (let i = 2; ; i++) {
      const kind = await inspectDir(dir);
      if (kind === 'missing' || kind === 'empty') break;
      dir = `${base}-${i}`;
    }
    await checkCreatable(dir, dir);
  }
  return runPaths(dir);
}

/** Creates a planned run directory (and its checkpoints/). */
export async function makeRunDir(paths: RunPaths): Promise<RunPaths> {
  await mkdir(paths.checkpoints, { recursive: true });
  return paths;
}

/** planRunDir, then makeRunDir. */
export async function createRunDir(options: { recipeName: string; out?: string; root?: string; now?: Date }): Promise<RunPaths> {
  return makeRunDir(await planRunDir(options));
}

/** An existing run directory for --resume, checked without writing: a directory with a metrics log and, if any, a checkpoints directory. */
export async function openRunDir(dir: string): Promise<RunPaths> {
  const paths = runPaths(resolve(dir));
  const notRun = (why: string) =>
    new InputError('run', `${shortPath(dir)} is not a Horizon run directory (${why}); give --resume the directory a previous \`horizon train\` created.`);
  const kind = await inspectDir(paths.dir);
  if (kind === 'missing') throw notRun('it does not exist');
  if (kind === 'not-dir') throw notRun('it is a file');
  const metrics = await stat(paths.metrics).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!metrics) throw notRun('it has no metrics.jsonl');
  if (!metrics.isFile()) throw notRun('its metrics.jsonl is not a file');
  if ((await inspectDir(paths.checkpoints)) === 'not-dir')
    throw new InputError('run', `${shortPath(paths.checkpoints)} is a file, not a directory of checkpoints; move it away and resume again.`);
  return paths;
}

/** Removes temp files an interrupted rewrite of a log left in the run directory (older versions rewrote logs via temp files). */
export async function removeStrayTemps(paths: RunPaths): Promise<string[]> {
  const stray = (await readdir(paths.dir)).filter((name) => /^\.(metrics|samples)\.jsonl\.tmp-/.test(name));
  for (const name of stray) await rm(join(paths.dir, name), { force: true });
  return stray;
}

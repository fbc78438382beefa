// A run directory: everything one `horizon train` run writes, in one place.
//
//   runs/<recipe>-<YYYYMMDD-HHMMSS>/
//     metrics.jsonl          line 1 the resolved recipe, then one line per step (core/metrics/jsonl.ts)
//     samples.jsonl          a few rollouts per iteration, for `horizon sample` and the UI's replay
//     checkpoints/step-N/    policy/critic/reference/optimizer .safetensors, state.json, COMMIT
//
// Names use UTC so two machines name the same moment alike. A new run never reuses a directory
// that has anything in it: nothing a previous run wrote is overwritten.

import { mkdir, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '@horizon/core';

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

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) return false;
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/**
 * Creates a fresh run directory: `out` if given (it must be missing or empty), else
 * `<root>/<recipe>-<time>` (with -2, -3, … if that name is taken).
 */
export async function createRunDir(options: { recipeName: string; out?: string; root?: string; now?: Date }): Promise<RunPaths> {
  let dir: string;
  if (options.out !== undefined) {
    dir = resolve(options.out);
    if (!(await isEmptyOrMissing(dir)))
      throw new InputError(
        'run',
        `run directory ${options.out} already exists and is not empty; choose another --out, or continue it with --resume ${options.out}.`,
      );
  } else {
    const base = join(resolve(options.root ?? 'runs'), runDirName(options.recipeName, options.now ?? new Date()));
    dir = base;
    for (let i = 2; !(await isEmptyOrMissing(dir)); i++) dir = `${base}-${i}`;
  }
  const paths = runPaths(dir);
  await mkdir(paths.checkpoints, { recursive: true });
  return paths;
}

/** An existing run directory for --resume; refuses one without a metrics log. */
export async function openRunDir(dir: string): Promise<RunPaths> {
  const paths = runPaths(resolve(dir));
  try {
    await stat(paths.metrics);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new InputError(
      'run',
      `${dir} is not a Horizon run directory (it has no metrics.jsonl); give --resume the directory a previous \`horizon train\` created.`,
    );
  }
  return paths;
}

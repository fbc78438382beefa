// Writes an export's files all at once or not at all: into a sibling folder first, renamed into
// place when every file is down, so a crash or a full disk never leaves a half export that a
// PyTorch user would load. An --out that already holds something is refused (one sentence): an
// export never overwrites a folder or file it did not just make.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../cli/command.ts';

/** Refuses an --out folder that exists and is not empty, or is a file. */
export function checkOutFolder(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new UsageError(`--out ${out} is a file; give a new folder for the export.`);
  if (readdirSync(out).length > 0) throw new UsageError(`--out ${out} already holds files; give a new or empty folder, so nothing is overwritten.`);
}

/** Writes `files` (name → bytes) as the folder `out`. */
export async function writeFolder(out: string, files: ReadonlyMap<string, Uint8Array | string>): Promise<void> {
  const target = resolve(out);
  checkOutFolder(target);
  await mkdir(dirname(target), { recursive: true });
  const staging = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging);
  try {
    for (const [name, bytes] of files) await writeFile(join(staging, name), bytes);
    // rename(2) replaces an empty directory, so an existing empty --out is fine too.
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Refuses a file path that already exists. */
export function checkNewFile(out: string): void {
  if (existsSync(resolve(out))) throw new UsageError(`${out} already exists; give a new file name, so nothing is overwritten.`);
}

/** Writes one file (a dataset) through a temporary sibling, refusing to replace an existing one. */
export async function writeNewFile(out: string, text: string): Promise<void> {
  const target = resolve(out);
  checkNewFile(out);
  await mkdir(dirname(target), { recursive: true });
  const staging = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  try {
    await writeFile(staging, text);
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { force: true });
    throw error;
  }
}

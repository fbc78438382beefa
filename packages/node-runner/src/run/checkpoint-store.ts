// Checkpoints on disk, the Node implementation of core's CheckpointStore.
//
//   checkpoints/step-N/<file>   each file written as .<file>.tmp-…, fsynced, renamed into place
//   checkpoints/step-N/COMMIT   written last, the same way: {"format","step","files"}
//
// A step directory without COMMIT is an interrupted write: invisible to list() and refused by
// read(), and cleared by the next write of that step or by collectGarbage(). Removing a checkpoint
// deletes COMMIT first, so a crash halfway through a removal leaves it uncommitted, never half
// there. (llm.c's DONE_ file and Megatron's tracker file play the same role; reliability.md §3.1.)

import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, type CheckpointStore } from '@horizon/core';
import { fsyncDir, tempName } from './fs-durable.ts';

export const COMMIT_FILE = 'COMMIT';
const COMMIT_FORMAT = 'horizon.commit/1';
const STEP_DIR = /^step-(0|[1-9][0-9]*)$/;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The file-system calls the store makes, replaceable in tests to inject a crash at any point. */
export interface StoreFs {
  mkdir: typeof mkdir;
  open: typeof open;
  rename: typeof rename;
  rm: typeof rm;
  unlink: typeof unlink;
}

const NODE_FS: StoreFs = { mkdir, open, rename, rm, unlink };

export class DirectoryCheckpointStore implements CheckpointStore {
  constructor(
    readonly location: string,
    private readonly fs: StoreFs = NODE_FS,
  ) {}

  describe(step: number, file?: string): string {
    return join(this.location, `step-${step}`, ...(file ? [file] : []));
  }

  async list(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const steps: number[] = [];
    for (const name of names) {
      const m = STEP_DIR.exec(name);
      if (m && (await this.commit(Number(m[1]))) !== undefined) steps.push(Number(m[1]));
    }
    return steps.sort((a, b) => a - b);
  }

  async write(step: number, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
    if (!Number.isSafeInteger(step) || step < 0) throw new RangeError(`checkpoint step must be a non-negative integer, got ${step}`);
    for (const name of files.keys()) if (!FILE_NAME.test(name) || name === COMMIT_FILE) throw new RangeError(`bad checkpoint file name "${name}"`);
    if ((await this.commit(step)) !== undefined) throw new CheckpointError(`checkpoint ${this.describe(step)} already exists; refusing to overwrite it.`);
    const dir = this.describe(step);
    await this.fs.rm(dir, { recursive: true, force: true }); // an interrupted earlier write of this step
    await this.fs.mkdir(dir, { recursive: true });
    await fsyncDir(this.location);
    for (const [name, bytes] of files) await this.writeDurably(dir, name, bytes);
    const commit = { format: COMMIT_FORMAT, step, files: [...files.keys()] };
    await this.writeDurably(dir, COMMIT_FILE, new TextEncoder().encode(`${JSON.stringify(commit)}\n`));
  }

  async read(step: number): Promise<Map<string, Uint8Array>> {
    const commit = await this.commit(step);
    if (commit === undefined)
      throw new CheckpointError(
        `checkpoint ${this.describe(step)} is incomplete (no valid ${COMMIT_FILE} marker): it was interrupted while being written, so it cannot be loaded.`,
      );
    const files = new Map<string, Uint8Array>();
    for (const name of commit) {
      try {
        files.set(name, new Uint8Array(await readFile(this.describe(step, name))));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        throw new CheckpointError(`checkpoint file ${this.describe(step, name)} is missing; the checkpoint was damaged after it was written.`, name);
      }
    }
    return files;
  }

  async remove(step: number): Promise<void> {
    const dir = this.describe(step);
    try {
      await this.fs.unlink(join(dir, COMMIT_FILE));
      await fsyncDir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await this.fs.rm(dir, { recursive: true, force: true });
  }

  /** Deletes interrupted writes: step directories without a commit marker, and stray temp files. */
  async collectGarbage(): Promise<string[]> {
    const removed: string[] = [];
    let names: string[];
    try {
      names = await readdir(this.location);
    } catch {
      return removed;
    }
    for (const name of names) {
      const m = STEP_DIR.exec(name);
      if (m && (await this.commit(Number(m[1]))) === undefined) {
        await this.fs.rm(join(this.location, name), { recursive: true, force: true });
        removed.push(name);
      }
    }
    return removed;
  }

  /** The file list of a step's commit marker, or undefined if there is no valid one. */
  private async commit(step: number): Promise<string[] | undefined> {
    let text: string;
    try {
      text = await readFile(this.describe(step, COMMIT_FILE), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const c = JSON.parse(text);
      if (c.format === COMMIT_FORMAT && c.step === step && Array.isArray(c.files) && c.files.every((f: unknown) => typeof f === 'string' && FILE_NAME.test(f)))
        return c.files;
    } catch {
      // A torn marker is no marker.
    }
    return undefined;
  }

  private async writeDurably(dir: string, name: string, bytes: Uint8Array): Promise<void> {
    const temp = join(dir, tempName(name));
    const handle = await this.fs.open(temp, 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.fs.rename(temp, join(dir, name));
    await fsyncDir(dir);
  }
}

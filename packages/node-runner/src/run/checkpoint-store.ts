// Checkpoints on disk, the Node implementation of core's CheckpointStore.
//
//   checkpoints/step-N/<file>   each file written as .<file>.tmp-…, fsynced, renamed into place
//   checkpoints/step-N/COMMIT   written last, the same way: {"format","step","files"}
//
// A step directory without COMMIT is an interrupted write: invisible to list() and refused by
// readFile(), and cleared by the next write of that step or by collectGarbage(). Removing a checkpoint
// deletes COMMIT first, so a crash halfway through a removal leaves it uncommitted, never half
// there. (llm.c's DONE_ file and Megatron's tracker file play the same role; docs/reliability.md §2.)
// A write that fails (ENOSPC) removes its step directory: no temp file stays behind.
//
// replace() swaps a committed step for a new one (a checkpoint taken in SFT is always step 0, and a
// later stop in SFT, or after it, rewrites step 0): the new one is written and committed as
// step-N.next, then step-N → step-N.old, step-N.next → step-N, step-N.old removed. A crash between
// the two renames leaves no step-N; finishInterruptedReplace() completes it from step-N.next.

import { mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, type CheckpointFileRead, type CheckpointStore } from '@horizon/core';
import { fsyncDir, tempName } from './fs-durable.ts';
import { FileRefused, readCappedFile } from './read-file.ts';

export const COMMIT_FILE = 'COMMIT';
const COMMIT_FORMAT = 'horizon.commit/1';
const STEP_DIR = /^step-(0|[1-9][0-9]*)$/;
const SWAP_DIR = /^step-(0|[1-9][0-9]*)\.(next|old)$/;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** A marker lists a handful of file names. */
const MAX_COMMIT_BYTES = 64 * 1024;

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
    /** Bytes per read call (default READ_CHUNK_BYTES); tests lower it to exercise chunked reads. */
    private readonly chunkBytes?: number,
  ) {}

  describe(step: number, file?: string): string {
    return join(this.location, `step-${step}`, ...(file ? [file] : []));
  }

  async list(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.location);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return [];
      if (code === 'ENOTDIR')
        throw new CheckpointError(`${this.location} is not a directory, so it holds no checkpoints; point at a run directory whose checkpoints/ is one.`);
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
    await this.writeCommitted(this.describe(step), step, files);
  }

  /** Replaces committed step `step` (or writes it, if there is none) so that a crash at any point leaves one of the two. */
  async replace(step: number, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
    if ((await this.commit(step)) === undefined) return this.write(step, files);
    const dir = this.describe(step);
    await this.writeCommitted(`${dir}.next`, step, files);
    await this.fs.rm(`${dir}.old`, { recursive: true, force: true });
    await this.fs.rename(dir, `${dir}.old`);
    await this.fs.rename(`${dir}.next`, dir);
    await fsyncDir(this.location);
    await this.fs.rm(`${dir}.old`, { recursive: true, force: true });
  }

  /**
   * Completes a replace() a crash cut between its two renames (step-N missing, step-N.next
   * committed); returns the steps it put back. The only write resuming makes before its checks:
   * it changes no checkpoint, it makes a committed one visible again.
   */
  async finishInterruptedReplace(): Promise<number[]> {
    const done: number[] = [];
    for (const name of await this.names()) {
      const m = /^step-(0|[1-9][0-9]*)\.next$/.exec(name);
      if (!m) continue;
      const step = Number(m[1]);
      if ((await this.commit(step)) !== undefined || (await this.commitIn(join(this.location, name), step)) === undefined) continue;
      await this.fs.rm(this.describe(step), { recursive: true, force: true });
      await this.fs.rename(join(this.location, name), this.describe(step));
      await fsyncDir(this.location);
      done.push(step);
    }
    return done;
  }

  async readFile(step: number, file: string, maxBytes: number): Promise<CheckpointFileRead> {
    const commit = await this.commit(step);
    if (commit === undefined)
      throw new CheckpointError(
        `checkpoint ${this.describe(step)} is incomplete (no valid ${COMMIT_FILE} marker): it was interrupted while being written, so it cannot be loaded.`,
      );
    const path = this.describe(step, file);
    if (!commit.includes(file)) throw new CheckpointError(`checkpoint file ${path} is missing; its ${COMMIT_FILE} marker does not list it.`, file);
    try {
      return await readCappedFile(path, { maxBytes, sha256: true, ...(this.chunkBytes ? { chunkBytes: this.chunkBytes } : {}) });
    } catch (error) {
      if (!(error instanceof FileRefused)) throw error;
      if (error.code === 'TOO_LARGE') return { size: error.size as number };
      if (error.code === 'ENOENT') throw new CheckpointError(`checkpoint file ${path} is missing; the checkpoint was damaged after it was written.`, file);
      if (error.code === 'CHANGED') throw new CheckpointError(`checkpoint file ${path} changed while it was read; is another process writing this run?`, file);
      throw new CheckpointError(
        `checkpoint file ${path} is not a regular file (${error.code === 'EISDIR' ? 'a directory' : 'a pipe, device or socket'}); the checkpoint was damaged after it was written, so resume from an earlier one or start a new run.`,
        file,
      );
    }
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

  /**
   * Deletes interrupted writes and removals: step directories without a commit marker, leftovers
   * of a replace (step-N.next, step-N.old) and stray temp files. Returns the names removed.
   */
  async collectGarbage(): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await this.names()) {
      const m = STEP_DIR.exec(name);
      const leftover = (m && (await this.commit(Number(m[1]))) === undefined) || SWAP_DIR.test(name) || /^\..*\.tmp-/.test(name);
      if (!leftover) continue;
      await this.fs.rm(join(this.location, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }

  private async names(): Promise<string[]> {
    try {
      return await readdir(this.location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Writes every file into `dir`, then its commit marker; on failure removes `dir`, so a full disk leaves no temp files. */
  private async writeCommitted(dir: string, step: number, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
    await this.fs.rm(dir, { recursive: true, force: true }); // an interrupted earlier write of this step
    try {
      await this.fs.mkdir(dir, { recursive: true });
      await fsyncDir(this.location);
      for (const [name, bytes] of files) await this.writeDurably(dir, name, bytes);
      const commit = { format: COMMIT_FORMAT, step, files: [...files.keys()] };
      await this.writeDurably(dir, COMMIT_FILE, new TextEncoder().encode(`${JSON.stringify(commit)}\n`));
    } catch (error) {
      await this.fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** The file list of a step's commit marker, or undefined if there is no valid one. */
  private async commit(step: number): Promise<string[] | undefined> {
    return this.commitIn(this.describe(step), step);
  }

  private async commitIn(dir: string, step: number): Promise<string[] | undefined> {
    let text: string;
    try {
      // Capped, and regular files only: a marker replaced by a FIFO or /dev/zero is no marker.
      text = new TextDecoder().decode((await readCappedFile(join(dir, COMMIT_FILE), { maxBytes: MAX_COMMIT_BYTES })).bytes);
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

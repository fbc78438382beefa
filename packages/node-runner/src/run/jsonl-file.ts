// Append-only JSONL files that survive crashes: every append is written and fsynced before it
// resolves, and resuming cuts the file back to exactly the lines the checkpoint had seen (a torn
// last line from a crash included), rewriting it atomically (temp file, fsync, rename).

import { type FileHandle, open, readFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InputError } from '@horizon/core';
import { fsyncDir, tempName } from './fs-durable.ts';

export class JsonlFile {
  private constructor(
    readonly path: string,
    private handle: FileHandle | undefined,
    private lines: number,
  ) {}

  /** Creates the file (refusing an existing one) with optional first lines. */
  static async create(path: string, firstLines: readonly string[] = []): Promise<JsonlFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new InputError('run', `${path} already exists; refusing to overwrite a run log.`);
      throw error;
    }
    const file = new JsonlFile(path, handle, 0);
    await file.append(firstLines);
    await fsyncDir(dirname(path));
    return file;
  }

  /**
   * Reopens the file keeping only its first `keepLines` complete lines (what the checkpoint saw);
   * refuses if it has fewer. Returns the kept text too, for the caller to check (e.g. the header).
   */
  static async resume(path: string, keepLines: number): Promise<{ file: JsonlFile; kept: string }> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError('run', `${path} is missing; the run directory is incomplete.`);
      throw error;
    }
    const complete = text.split('\n').slice(0, -1);
    if (complete.length < keepLines)
      throw new InputError(
        'run',
        `${path} has ${complete.length} complete lines but the checkpoint was taken after ${keepLines}; the log lost lines, so start a new run.`,
      );
    const kept = complete
      .slice(0, keepLines)
      .map((l) => `${l}\n`)
      .join('');
    if (kept !== text) {
      const temp = join(dirname(path), tempName(basename(path)));
      const h = await open(temp, 'wx');
      await h.writeFile(kept);
      await h.sync();
      await h.close();
      await rename(temp, path);
      await fsyncDir(dirname(path));
    }
    return { file: new JsonlFile(path, await open(path, 'a'), keepLines), kept };
  }

  /** Lines written so far (store it in the checkpoint to resume exactly). */
  get lineCount(): number {
    return this.lines;
  }

  /** Appends lines (each ending in "\n") and fsyncs. */
  async append(lines: readonly string[]): Promise<void> {
    if (!this.handle) throw new Error(`${this.path}: append after close`);
    if (lines.length === 0) return;
    for (const l of lines) if (!l.endsWith('\n') || l.indexOf('\n') !== l.length - 1) throw new RangeError('each JSONL line must end with exactly one "\\n"');
    await this.handle.write(lines.join(''));
    await this.handle.datasync();
    this.lines += lines.length;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}

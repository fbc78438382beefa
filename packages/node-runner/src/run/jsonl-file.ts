// Append-only JSONL files that survive crashes: every append is written and fsynced before it
// resolves. A checkpoint records each log's position (lines and bytes); resuming first inspects
// the file without touching it (so a refused resume changes nothing, docs/reliability.md §5), then cuts it
// back to exactly that position with one truncate, which needs no free space and leaves no temp
// file (a torn last line from a crash goes with it).

import { type FileHandle, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError } from '@horizon/core';
import { fsyncDir } from './fs-durable.ts';

/** Where a log stood when a checkpoint was taken. `bytes` is absent in checkpoints from before it was recorded. */
export interface LogPosition {
  lines: number;
  bytes?: number;
}

/** What resuming a log will keep, found without writing anything. */
export interface ResumePlan {
  path: string;
  lines: number;
  bytes: number;
  /** The kept text, for the caller to check (the header, the last record). */
  kept: string;
  /** The file is longer than the kept text: rows logged after the checkpoint, or a torn line. */
  cut: boolean;
}

const NEWLINE = 0x0a;

export class JsonlFile {
  private constructor(
    readonly path: string,
    private handle: FileHandle | undefined,
    private lines: number,
    private bytes: number,
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
    const file = new JsonlFile(path, handle, 0, 0);
    await file.append(firstLines);
    await fsyncDir(dirname(path));
    return file;
  }

  /**
   * Reads the file and finds the prefix the checkpoint saw; refuses (InputError) a file that is
   * missing, shorter than that, or whose lines do not end where the checkpoint says. Writes nothing.
   */
  static async inspect(path: string, at: LogPosition): Promise<ResumePlan> {
    let buf: Buffer;
    try {
      buf = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError('run', `${path} is missing; the run directory is incomplete.`);
      throw error;
    }
    const damaged = (why: string) =>
      new InputError('run', `${path} ${why}, so it does not match the checkpoint; restore the file from a backup or start a new run.`);
    let bytes: number;
    if (at.bytes !== undefined) {
      bytes = at.bytes;
      if (buf.length < bytes) throw damaged(`has ${buf.length} bytes but the checkpoint was taken after ${bytes}`);
      if (bytes > 0 && buf[bytes - 1] !== NEWLINE) throw damaged(`has no line end at byte ${bytes}, where the checkpoint's last line ended`);
      let lines = 0;
      for (let i = 0; i < bytes; i++) if (buf[i] === NEWLINE) lines++;
      if (lines !== at.lines) throw damaged(`has ${lines} lines before byte ${bytes} where the checkpoint saw ${at.lines}`);
    } else {
      // An older checkpoint recorded only the line count.
      let lines = 0;
      bytes = 0;
      while (lines < at.lines) {
        const end = buf.indexOf(NEWLINE, bytes);
        if (end < 0) throw damaged(`has ${lines} complete lines but the checkpoint was taken after ${at.lines}`);
        bytes = end + 1;
        lines++;
      }
    }
    return { path, lines: at.lines, bytes, kept: buf.subarray(0, bytes).toString('utf8'), cut: buf.length > bytes };
  }

  /** Cuts the file to the plan's prefix (if longer) and opens it for appending. */
  static async resume(plan: ResumePlan): Promise<JsonlFile> {
    const handle = await open(plan.path, 'r+');
    try {
      if (plan.cut) {
        await handle.truncate(plan.bytes);
        await handle.sync();
      }
    } finally {
      await handle.close();
    }
    return new JsonlFile(plan.path, await open(plan.path, 'a'), plan.lines, plan.bytes);
  }

  /** Lines written so far (store it in the checkpoint to resume exactly). */
  get lineCount(): number {
    return this.lines;
  }

  /** Bytes written so far: where the next line starts. */
  get byteCount(): number {
    return this.bytes;
  }

  get position(): LogPosition {
    return { lines: this.lines, bytes: this.bytes };
  }

  /** Appends lines (each ending in "\n") and fsyncs. */
  async append(lines: readonly string[]): Promise<void> {
    if (!this.handle) throw new Error(`${this.path}: append after close`);
    if (lines.length === 0) return;
    for (const l of lines) if (!l.endsWith('\n') || l.indexOf('\n') !== l.length - 1) throw new RangeError('each JSONL line must end with exactly one "\\n"');
    const text = lines.join('');
    await this.handle.write(text);
    await this.handle.datasync();
    this.lines += lines.length;
    this.bytes += Buffer.byteLength(text);
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}

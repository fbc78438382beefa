// One writer per run directory (docs/reliability.md §6; two `--resume` of one run both trained, logged
// `rl 5` twice, and a later resume dropped real rows). The training process creates `<run>/lock`
// with O_EXCL before it writes anything and removes it on every way out; a second process finds it
// and is refused in one sentence. A lock whose pid is dead on this host is stale (a `kill -9`, a
// power cut) and is taken over with a message; a lock from another host cannot be checked, so it is
// refused with the command that removes it.

import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@horizon/core';
import { fsyncDir } from './fs-durable.ts';

export const LOCK_FILE = 'lock';

interface LockInfo {
  pid: number;
  host: string;
  /** ISO time the holder started. */
  started: string;
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const j = JSON.parse(text);
    if (Number.isSafeInteger(j.pid) && j.pid > 0 && typeof j.host === 'string' && typeof j.started === 'string') return j;
  } catch {
    // A torn lock (a crash while creating it) is judged below like a dead holder's.
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
  // A killed process stays a zombie until its parent or init reaps it (measured: up to seconds in a
  // container whose init is slow to reap); it holds nothing.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/s.test(stat);
  } catch {
    return true; // no /proc (macOS): kill(pid, 0) is all we know
  }
}

export class RunLock {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly text: string,
  ) {}

  /**
   * Takes the lock of run directory `dir`, or throws an InputError saying who holds it. `say`
   * reports a stale lock taken over.
   */
  static async acquire(dir: string, say: (line: string) => void): Promise<RunLock> {
    const path = join(dir, LOCK_FILE);
    const me: LockInfo = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
    const text = `${JSON.stringify(me)}\n`;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(path, 'wx');
        try {
          await handle.writeFile(text);
          await handle.sync();
        } catch (error) {
          await handle.close();
          await unlink(path).catch(() => undefined); // a torn lock of ours (ENOSPC)
          throw error;
        }
        await handle.close();
        await fsyncDir(dir);
        return new RunLock(path, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let held: string;
      try {
        held = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
        throw error;
      }
      const holder = parseLock(held);
      if (holder && holder.host !== me.host)
        throw new InputError(
          'run',
          `${dir} is locked by a \`horizon train\` on host ${holder.host} (pid ${holder.pid}, since ${holder.started}); if nothing there uses this run any more, delete ${path} and try again.`,
        );
      if (holder && alive(holder.pid))
        throw new InputError(
          'run',
          `${dir} is in use by another \`horizon train\` (pid ${holder.pid}, since ${holder.started}); wait for it to finish or stop it (kill ${holder.pid}) and resume then.`,
        );
      // Stale: move it aside under a name only we use, and make sure what we moved is the lock we judged
      // (another process may have taken it over between our read and the rename).
      const aside = `${path}.stale-${process.pid}`;
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = await readFile(aside, 'utf8');
      if (moved !== held) {
        // A live lock was moved: put it back unless someone holds the name already, and retry.
        await link(aside, path).catch(() => undefined);
        await unlink(aside);
        continue;
      }
      await unlink(aside);
      say(
        holder
          ? `taking over the lock of pid ${holder.pid} (started ${holder.started}), which is no longer running`
          : `taking over an unreadable lock file ${path} (a crash while it was written)`,
      );
    }
    throw new InputError('run', `could not lock ${dir}: other processes keep taking it; make sure only one \`horizon train\` uses this run.`);
  }

  /** Removes the lock if it is still ours; safe to call twice and from an exit handler (synchronous). */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      if (readFileSync(this.path, 'utf8') === this.text) unlinkSync(this.path);
    } catch {
      // Gone already (someone deleted it by hand): nothing to release.
    }
  }
}

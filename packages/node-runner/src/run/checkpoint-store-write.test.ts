// The write side of the directory checkpoint store beyond write(): a failed write leaves no temp
// file (ENOSPC), replace() swaps a committed step so that a crash at any point leaves one of the
// two, and collectGarbage() clears every leftover (it was once never called, so a crash during a
// deletion left a step folder forever).

import * as fs from 'node:fs/promises';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryCheckpointStore, type StoreFs } from './checkpoint-store.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-store-write-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const files = (text: string) =>
  new Map([
    ['a.bin', new TextEncoder().encode(text)],
    ['state.json', new TextEncoder().encode(`{"v":"${text}"}`)],
  ]);
/** The committed content of a step (read straight from disk: this file tests the write side). */
const text = async (store: DirectoryCheckpointStore, step: number) => {
  expect(await store.list()).toContain(step);
  return fs.readFile(join(store.describe(step), 'a.bin'), 'utf8');
};

/** The node fs, with call number `n` of `op` failing with `code`. */
function failing(op: keyof StoreFs, n: number, code: string): StoreFs {
  let calls = 0;
  const real: StoreFs = { mkdir: fs.mkdir, open: fs.open, rename: fs.rename, rm: fs.rm, unlink: fs.unlink };
  return {
    ...real,
    [op]: (async (...args: unknown[]) => {
      if (++calls === n) throw Object.assign(new Error(`${code}: injected`), { code });
      return (real[op] as (...a: unknown[]) => Promise<unknown>)(...args);
    }) as never,
  };
}

describe('DirectoryCheckpointStore writes', () => {
  it('a write that fails part-way (ENOSPC) removes its step directory: no temp files, earlier steps intact', async () => {
    const dir = join(root, 'enospc');
    await new DirectoryCheckpointStore(dir).write(1, files('one'));
    const store = new DirectoryCheckpointStore(dir, failing('rename', 2, 'ENOSPC'));
    await expect(store.write(2, files('two'))).rejects.toThrow(/ENOSPC/);
    expect(await readdir(dir)).toEqual(['step-1']);
    expect(await store.list()).toEqual([1]);
    expect(await text(store, 1)).toBe('one');
  });

  it('replace swaps a committed step; a crash between its renames is completed from step-N.next', async () => {
    const dir = join(root, 'replace');
    const store = new DirectoryCheckpointStore(dir);
    await store.replace(0, files('first')); // nothing to replace: a plain write
    await store.replace(0, files('second'));
    expect(await text(store, 0)).toBe('second');
    expect(await readdir(dir)).toEqual(['step-0']);
    // Crash after step-0 → step-0.old, before step-0.next → step-0.
    const crashing = new DirectoryCheckpointStore(dir, failing('rename', 5, 'EIO'));
    await expect(crashing.replace(0, files('third'))).rejects.toThrow(/EIO/);
    expect((await readdir(dir)).sort()).toEqual(['step-0.next', 'step-0.old']);
    expect(await store.list()).toEqual([]);
    expect(await store.finishInterruptedReplace()).toEqual([0]);
    expect(await text(store, 0)).toBe('third');
    expect(await store.collectGarbage()).toEqual(['step-0.old']);
    expect(await readdir(dir)).toEqual(['step-0']);
  });

  it('a replace that fails while writing the new one leaves the old one', async () => {
    const dir = join(root, 'replace-fail');
    await new DirectoryCheckpointStore(dir).write(0, files('old'));
    const store = new DirectoryCheckpointStore(dir, failing('open', 2, 'ENOSPC'));
    await expect(store.replace(0, files('new'))).rejects.toThrow(/ENOSPC/);
    expect(await readdir(dir)).toEqual(['step-0']);
    expect(await text(store, 0)).toBe('old');
  });

  it('collectGarbage removes uncommitted steps, swap leftovers and temp files, and keeps committed ones', async () => {
    const dir = join(root, 'gc');
    const store = new DirectoryCheckpointStore(dir);
    await store.write(3, files('three'));
    await fs.mkdir(join(dir, 'step-4'));
    await fs.writeFile(join(dir, 'step-4', '.a.bin.tmp-1-ab'), 'partial');
    await fs.mkdir(join(dir, 'step-3.old'));
    await fs.writeFile(join(dir, '.x.tmp-2-cd'), '');
    expect((await store.collectGarbage()).sort()).toEqual(['.x.tmp-2-cd', 'step-3.old', 'step-4']);
    expect(await readdir(dir)).toEqual(['step-3']);
  });
});

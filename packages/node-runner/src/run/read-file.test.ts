// Reading files a person may have damaged or replaced (docs/reliability.md §3.3): a FIFO, a device, a
// directory or an oversized file is refused at once; large files are read in chunks; a checkpoint's
// files are read no larger than state.json's sizes.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Checkpoint,
  CheckpointError,
  loadCheckpoint,
  modelConfigs,
  parameterLayout,
  recipeVocabSize,
  recipeVocabulary,
  resolveRecipe,
  saveCheckpoint,
} from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryCheckpointStore } from './checkpoint-store.ts';
import { FileRefused, readCappedFile } from './read-file.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-read-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = async () => {
  const d = join(root, `d${dirs++}`);
  await mkdir(d);
  return d;
};

async function refusal(p: Promise<unknown>): Promise<FileRefused> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileRefused);
  return error as FileRefused;
}

describe('readCappedFile', () => {
  it('reads a regular file in chunks into one buffer and hashes it on the way', async () => {
    const path = join(await freshDir(), 'f.bin');
    const data = new Uint8Array(1000).map((_, i) => (i * 7) % 251);
    await writeFile(path, data);
    const got = await readCappedFile(path, { maxBytes: 1000, sha256: true, chunkBytes: 64 });
    expect(got.bytes).toEqual(data);
    expect(got.sha256).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = join(await freshDir(), 'recipe.json');
    execFileSync('mkfifo', [fifo]);
    expect((await refusal(readCappedFile(fifo, { maxBytes: 1024 }))).code).toBe('NOT_REGULAR');
  });

  it('refuses a symlink to /dev/zero or /dev/urandom, a directory, a missing file and one over the cap', async () => {
    const dir = await freshDir();
    await symlink('/dev/zero', join(dir, 'zero'));
    await symlink('/dev/urandom', join(dir, 'random'));
    await writeFile(join(dir, 'big'), new Uint8Array(2048));
    expect((await refusal(readCappedFile(join(dir, 'zero'), { maxBytes: 1024 }))).code).toBe('NOT_REGULAR');
    expect((await refusal(readCappedFile(join(dir, 'random'), { maxBytes: 1024 }))).code).toBe('NOT_REGULAR');
    expect((await refusal(readCappedFile(dir, { maxBytes: 1024 }))).code).toBe('EISDIR');
    expect((await refusal(readCappedFile(join(dir, 'nothing'), { maxBytes: 1024 }))).code).toBe('ENOENT');
    const big = await refusal(readCappedFile(join(dir, 'big'), { maxBytes: 1024 }));
    expect([big.code, big.size]).toEqual(['TOO_LARGE', 2048]);
  });
});

const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
const config = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
function checkpoint(step: number): Checkpoint {
  const layout = parameterLayout(config);
  const params = new Float32Array(layout.totalSize); // alignment padding stays 0, as in a real model
  for (const e of layout.entries) for (let i = 0; i < e.size; i++) params[e.offset + i] = Math.sin(e.offset + i + step);
  return {
    step,
    recipe,
    models: { policy: { config, params, adam: { step, m: params.map((x) => x / 2), v: params.map((x) => x * x) } } },
    rng: {},
    dataCursor: {},
    extra: {},
    vocabulary: recipeVocabulary(recipe),
    trainerState: {},
  };
}

async function checkpointMessage(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckpointError);
  return (error as Error).message;
}

describe('DirectoryCheckpointStore reads a damaged checkpoint as one sentence', () => {
  it('loads through chunked reads (the path files over 2 GiB take)', async () => {
    const dir = await freshDir();
    await saveCheckpoint(new DirectoryCheckpointStore(dir), checkpoint(1), { keepLast: 1 });
    expect(await loadCheckpoint(new DirectoryCheckpointStore(dir, undefined, 4096))).toEqual(checkpoint(1));
  });

  it('a weight file replaced by a directory, or by a symlink to /dev/zero', async () => {
    for (const damage of ['directory', 'zero'] as const) {
      const dir = await freshDir();
      const store = new DirectoryCheckpointStore(dir);
      await saveCheckpoint(store, checkpoint(1), { keepLast: 1 });
      const file = store.describe(1, 'optimizer.safetensors');
      await rm(file);
      if (damage === 'directory') await mkdir(file);
      else await symlink('/dev/zero', file);
      expect(await checkpointMessage(loadCheckpoint(store))).toBe(
        `checkpoint file ${file} is not a regular file (${damage === 'directory' ? 'a directory' : 'a pipe, device or socket'}); the checkpoint was damaged after it was written, so resume from an earlier one or start a new run.`,
      );
    }
  });

  it('state.json a symlink to /dev/urandom, or grown past its cap', async () => {
    const dir = await freshDir();
    const store = new DirectoryCheckpointStore(dir);
    await saveCheckpoint(store, checkpoint(1), { keepLast: 1 });
    const state = store.describe(1, 'state.json');
    await rm(state);
    await symlink('/dev/urandom', state);
    expect(await checkpointMessage(loadCheckpoint(store))).toMatch(/^checkpoint file .*state\.json is not a regular file \(a pipe, device or socket\)/);
    await rm(state);
    await writeFile(state, new Uint8Array(5 * 1024 * 1024));
    expect(await checkpointMessage(loadCheckpoint(store))).toMatch(
      /^checkpoint file .*state\.json is corrupt \(5242880 bytes, more than the 4194304 a state file holds\)/,
    );
  });

  it('a weight file longer than state.json records is refused without reading it', async () => {
    const dir = await freshDir();
    const store = new DirectoryCheckpointStore(dir);
    await saveCheckpoint(store, checkpoint(1), { keepLast: 1 });
    const file = store.describe(1, 'policy.safetensors');
    // A sparse 3 GiB file: readFile would have failed (ERR_FS_FILE_TOO_LARGE) or allocated it all.
    execFileSync('truncate', ['-s', '3G', file]);
    expect(await checkpointMessage(loadCheckpoint(store))).toMatch(
      /^checkpoint file .*policy\.safetensors is corrupt \(3221225472 bytes, state\.json recorded \d+\)/,
    );
  });
});

describe('DirectoryCheckpointStore.list', () => {
  it('a checkpoints path that is a file is one sentence', async () => {
    const path = join(await freshDir(), 'checkpoints');
    await writeFile(path, 'not a directory');
    await expect(new DirectoryCheckpointStore(path).list()).rejects.toThrow(
      new CheckpointError(`${path} is not a directory, so it holds no checkpoints; point at a run directory whose checkpoints/ is one.`),
    );
  });
});

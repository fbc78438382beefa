import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Checkpoint,
  CheckpointError,
  type GptConfig,
  loadCheckpoint,
  modelConfigs,
  parameterLayout,
  recipeVocabSize,
  recipeVocabulary,
  resolveRecipe,
  saveCheckpoint,
} from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMIT_FILE, DirectoryCheckpointStore, type StoreFs } from './checkpoint-store.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-ckpt-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = async () => {
  const d = join(root, `c${dirs++}`);
  await mkdir(d);
  return d;
};

const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
// The tiny recipe's policy: a checkpoint's models must be the ones its recipe builds.
const config: GptConfig = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
function checkpoint(step: number): Checkpoint {
  const layout = parameterLayout(config);
  const params = new Float32Array(layout.totalSize);
  for (const e of layout.entries) for (let i = 0; i < e.size; i++) params[e.offset + i] = Math.sin(e.offset + i + step);
  return {
    step,
    recipe,
    models: { policy: { config, params, adam: { step, m: params.map((x) => x / 2), v: params.map((x) => x * x) } } },
    rng: { sampler: [step, 7] },
    dataCursor: { train: step * 8 },
    extra: {},
    vocabulary: recipeVocabulary(recipe),
    trainerState: {},
  };
}

/** Node's fs calls, failing at call number `failAt` (0-based) with a simulated crash. */
function faultyFs(failAt: number, counter = { calls: 0 }): StoreFs {
  const wrap =
    <F extends (...args: never[]) => unknown>(f: F) =>
    (...args: Parameters<F>) => {
      if (counter.calls++ === failAt) throw Object.assign(new Error('injected crash'), { code: 'EIO' });
      return f(...args);
    };
  return { mkdir: wrap(mkdir), open: wrap(open), rename: wrap(rename), rm: wrap(rm), unlink: wrap(unlink) } as StoreFs;
}

async function checkpointError(p: Promise<unknown>): Promise<CheckpointError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(CheckpointError);
    return error as CheckpointError;
  }
  throw new Error('expected a CheckpointError, got none');
}

describe('DirectoryCheckpointStore', () => {
  it('writes step-N with every file and the COMMIT marker, and loads it back exactly', async () => {
    const dir = await freshDir();
    const store = new DirectoryCheckpointStore(dir);
    await saveCheckpoint(store, checkpoint(3), { keepLast: 2 });
    expect(await readdir(dir)).toEqual(['step-3']);
    expect((await readdir(join(dir, 'step-3'))).sort()).toEqual([
      COMMIT_FILE,
      'optimizer.safetensors',
      'policy.safetensors',
      'state.json',
      'trainer-state.json',
    ]);
    expect(JSON.parse(await readFile(join(dir, 'step-3', COMMIT_FILE), 'utf8'))).toEqual({
      format: 'horizon.commit/1',
      step: 3,
      files: ['policy.safetensors', 'optimizer.safetensors', 'trainer-state.json', 'state.json'],
    });
    expect(await loadCheckpoint(store, { recipe })).toEqual(checkpoint(3));
  });

  it('keeps the last k and refuses to overwrite a committed step', async () => {
    const store = new DirectoryCheckpointStore(await freshDir());
    for (const s of [1, 2, 3]) await saveCheckpoint(store, checkpoint(s), { keepLast: 2 });
    expect(await store.list()).toEqual([2, 3]);
    expect((await checkpointError(saveCheckpoint(store, checkpoint(3), { keepLast: 2 }))).message).toBe(
      `checkpoint ${store.describe(3)} already exists; refusing to overwrite it.`,
    );
    expect((await loadCheckpoint(store)).step).toBe(3);
  });

  it('an empty or missing directory has no checkpoint; the message says where', async () => {
    const missing = new DirectoryCheckpointStore(join(root, 'does-not-exist'));
    expect(await missing.list()).toEqual([]);
    expect((await checkpointError(loadCheckpoint(missing))).message).toBe(
      `no committed checkpoint in ${join(root, 'does-not-exist')}; start a new run, or point --resume at a run directory that has one.`,
    );
  });

  it('a step without COMMIT is invisible, refused by read, and collected as garbage', async () => {
    const dir = await freshDir();
    const store = new DirectoryCheckpointStore(dir);
    await saveCheckpoint(store, checkpoint(1), { keepLast: 5 });
    await mkdir(join(dir, 'step-2'));
    await writeFile(join(dir, 'step-2', 'policy.safetensors'), 'half');
    await writeFile(join(dir, 'step-2', COMMIT_FILE), '{"format":"horizon.commit/1","st');
    expect(await store.list()).toEqual([1]);
    expect((await checkpointError(store.readFile(2, 'policy.safetensors', 1024))).message).toBe(
      `checkpoint ${store.describe(2)} is incomplete (no valid COMMIT marker): it was interrupted while being written, so it cannot be loaded.`,
    );
    expect(await store.collectGarbage()).toEqual(['step-2']);
    expect(await readdir(dir)).toEqual(['step-1']);
    await saveCheckpoint(store, checkpoint(2), { keepLast: 5 });
    expect(await store.list()).toEqual([1, 2]);
  });

  it('a damaged file on disk is named by its path; a deleted one too', async () => {
    const dir = await freshDir();
    const store = new DirectoryCheckpointStore(dir);
    await saveCheckpoint(store, checkpoint(1), { keepLast: 5 });
    await saveCheckpoint(store, checkpoint(2), { keepLast: 5 });
    const file = join(dir, 'step-2', 'optimizer.safetensors');
    const bytes = await readFile(file);
    bytes[bytes.length - 3] ^= 0x40;
    await writeFile(file, bytes);
    expect((await checkpointError(loadCheckpoint(store))).message).toBe(
      `checkpoint file ${file} is corrupt (its SHA-256 differs from the one state.json recorded); resume from an earlier checkpoint or start a new run (the previous committed checkpoint is ${join(dir, 'step-1')}).`,
    );
    await rm(join(dir, 'step-1', 'state.json'));
    expect((await checkpointError(loadCheckpoint(store, { step: 1 }))).message).toBe(
      `checkpoint file ${join(dir, 'step-1', 'state.json')} is missing; the checkpoint was damaged after it was written.`,
    );
  });

  it('a crash at any file-system call of a save leaves the previous checkpoint loadable and the new one all-or-nothing', async () => {
    const counter = { calls: 0 };
    const probe = await freshDir();
    await saveCheckpoint(new DirectoryCheckpointStore(probe), checkpoint(1), { keepLast: 1 });
    await saveCheckpoint(new DirectoryCheckpointStore(probe, faultyFs(-1, counter)), checkpoint(2), { keepLast: 1 });
    const calls = counter.calls; // every call of one save, including deleting step 1 after the commit
    expect(calls).toBeGreaterThan(8);
    for (let k = 0; k < calls; k++) {
      const dir = await freshDir();
      await saveCheckpoint(new DirectoryCheckpointStore(dir), checkpoint(1), { keepLast: 1 });
      await expect(saveCheckpoint(new DirectoryCheckpointStore(dir, faultyFs(k)), checkpoint(2), { keepLast: 1 })).rejects.toThrow('injected crash');
      const store = new DirectoryCheckpointStore(dir);
      const steps = await store.list();
      expect(steps.length, `crash at call ${k}`).toBeGreaterThan(0);
      const latest = await loadCheckpoint(store);
      expect(latest).toEqual(checkpoint(steps.at(-1)!));
      await store.collectGarbage();
      if (!steps.includes(2)) {
        await saveCheckpoint(store, checkpoint(2), { keepLast: 1 });
        expect(await store.list()).toEqual([2]);
      }
    }
  });
});

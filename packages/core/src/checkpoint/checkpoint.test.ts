import { SeededRandom } from '@horizon/kernels';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../errors.ts';
import type { GptConfig } from '../model/config.ts';
import { parameterLayout } from '../model/parameters.ts';
import { modelConfigs } from '../recipe/checks.ts';
import { recipeVocabSize, recipeVocabulary } from '../recipe/fits.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import {
  type Checkpoint,
  CheckpointError,
  decodeCheckpoint,
  encodeCheckpoint,
  MAX_STATE_BYTES,
  type ModelState,
  memoryReader,
  STATE_FILE,
  sealStateFile,
  sha256Hex,
  TRAINER_STATE_FILE,
} from './checkpoint.ts';
import { decodeSafetensors, readF32 } from './safetensors.ts';
import { type CheckpointStore, checkResumeRecipe, loadCheckpoint, MemoryCheckpointStore, saveCheckpoint } from './store.ts';

const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
// The tiny recipe's models: a checkpoint's models must be the ones its recipe builds.
const { policy: policyConfig, critic: criticConfig } = modelConfigs(recipe, recipeVocabSize(recipe));

/** Random values in every parameter; the alignment padding between parameters stays 0, as in a real model. */
function model(config: GptConfig, seed: number, adam = true): ModelState {
  const layout = parameterLayout(config);
  const rng = new SeededRandom(seed);
  const fill = (lo: number) => {
    const flat = new Float32Array(layout.totalSize);
    for (const e of layout.entries) flat.set(rng.uniformArray(e.size, lo, 1), e.offset);
    return flat;
  };
  const state: ModelState = { config, params: fill(-1) };
  if (adam) state.adam = { step: seed, m: fill(-1), v: fill(0) };
  return state;
}

function checkpoint(step: number): Checkpoint {
  return {
    step,
    recipe,
    models: { policy: model(policyConfig, step + 1), critic: model(criticConfig, step + 2), reference: model(policyConfig, 99, false) },
    rng: { sampler: [1, 2, step * 10], init: 12345 },
    dataCursor: { train: step * 8, sft: 160 },
    extra: { phase: 'rl', best: { held_out: 0.25 } },
    vocabulary: recipeVocabulary(recipe),
    trainerState: {},
  };
}

async function checkpointError(p: Promise<unknown>): Promise<CheckpointError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(CheckpointError);
    expect(isInputError(error)).toBe(true);
    return error as CheckpointError;
  }
  throw new Error('expected a CheckpointError, got none');
}

describe('checkpoint files', () => {
  it('round-trips weights, AdamW moments, RNG states, cursors and extras exactly', async () => {
    const ckpt = checkpoint(4);
    const files = await encodeCheckpoint(ckpt);
    expect([...files.keys()]).toEqual([
      'policy.safetensors',
      'critic.safetensors',
      'reference.safetensors',
      'optimizer.safetensors',
      TRAINER_STATE_FILE,
      STATE_FILE,
    ]);
    const back = await decodeCheckpoint(files);
    expect(back).toEqual(ckpt);
    expect(back.models.reference?.adam).toBeUndefined();
    expect(await encodeCheckpoint(back)).toEqual(files);
  });

  it('weights carry PyTorch names and shapes; AdamW moments are exp_avg / exp_avg_sq', async () => {
    const ckpt = checkpoint(1);
    const files = await encodeCheckpoint(ckpt);
    const policy = decodeSafetensors(files.get('policy.safetensors')!);
    expect(policy.metadata).toEqual({ format: 'pt', model: 'policy', step: '1' });
    const layout = parameterLayout(policyConfig);
    const wte = layout.entries.find((e) => e.name === 'transformer.wte.weight')!;
    expect([...readF32(policy, 'transformer.wte.weight', [13, 32])]).toEqual([...ckpt.models.policy.params.subarray(wte.offset, wte.offset + wte.size)]);
    expect(policy.tensors.size).toBe(layout.entries.length);
    const critic = decodeSafetensors(files.get('critic.safetensors')!);
    expect(critic.tensors.get('value_head.weight')?.shape).toEqual([1, 32]);
    const optimizer = decodeSafetensors(files.get('optimizer.safetensors')!);
    expect(optimizer.tensors.has('policy.exp_avg.transformer.wte.weight')).toBe(true);
    expect(optimizer.tensors.has('critic.exp_avg_sq.value_head.bias')).toBe(true);
    expect([...optimizer.tensors.keys()].some((k) => k.startsWith('reference.'))).toBe(false);
    const state = JSON.parse(new TextDecoder().decode(files.get(STATE_FILE)));
    expect(state).toMatchObject({ format: 'horizon.checkpoint/3', step: 1, adamSteps: { policy: 2, critic: 3 }, recipe: { name: 'tiny' } });
    expect(state.files['policy.safetensors'].sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a GRPO checkpoint holds the models GRPO declares: no critic file', async () => {
    const ckpt = checkpoint(2);
    const { critic: _, ...models } = ckpt.models;
    const grpo = resolveRecipe({ preset: 'tiny', sets: ['rl.algorithm=grpo', 'rl.groupSize=2'] }).recipe;
    const files = await encodeCheckpoint({ ...ckpt, recipe: grpo, models });
    expect(files.has('critic.safetensors')).toBe(false);
    expect(Object.keys((await decodeCheckpoint(files)).models)).toEqual(['policy', 'reference']);
  });

  it("a model the recipe's method does not declare is refused, naming the model and the method", async () => {
    const grpo = resolveRecipe({ preset: 'tiny', sets: ['rl.algorithm=grpo', 'rl.groupSize=2'] }).recipe;
    const files = await encodeCheckpoint({ ...checkpoint(2), recipe: grpo });
    expect((await checkpointError(decodeCheckpoint(files))).message).toBe(
      'checkpoint file state.json is corrupt (it records a model "critic", which grpo does not declare); resume from an earlier checkpoint or start a new run.',
    );
  });

  it('a model name must be usable as a file name', async () => {
    const ckpt = checkpoint(1);
    await expect(encodeCheckpoint({ ...ckpt, models: { ...ckpt.models, '../x': ckpt.models.reference } })).rejects.toThrow(
      'checkpoint model name "../x" must be lowercase letters, digits and "-"',
    );
  });

  it('refuses flat buffers that do not match the layout', async () => {
    const bad = checkpoint(1);
    bad.models.policy.params = new Float32Array(10);
    await expect(encodeCheckpoint(bad)).rejects.toThrow(/policy.params has 10 values, its layout needs/);
  });
});

describe('loading refuses missing, corrupt and mismatched checkpoints', () => {
  async function storeWith(...steps: number[]) {
    const store = new MemoryCheckpointStore();
    for (const s of steps) await saveCheckpoint(store, checkpoint(s), { keepLast: 10 });
    return store;
  }

  it('an empty store', async () => {
    expect((await checkpointError(loadCheckpoint(new MemoryCheckpointStore()))).message).toBe(
      'no committed checkpoint in memory; start a new run, or point --resume at a run directory that has one.',
    );
  });

  it('loads the latest by default, or a named step', async () => {
    const store = await storeWith(2, 4);
    expect((await loadCheckpoint(store)).step).toBe(4);
    expect((await loadCheckpoint(store, { step: 2 })).step).toBe(2);
    expect((await checkpointError(loadCheckpoint(store, { step: 3 }))).message).toBe(
      'there is no committed checkpoint for step 3 in memory (committed: 2, 4).',
    );
  });

  it('one flipped byte in a weight file names the file and the previous checkpoint', async () => {
    const store = await storeWith(2, 4);
    store.raw(4, 'policy.safetensors')![200] ^= 1;
    const err = await checkpointError(loadCheckpoint(store));
    expect(err.message).toBe(
      'checkpoint file memory:step-4/policy.safetensors is corrupt (its SHA-256 differs from the one state.json recorded); resume from an earlier checkpoint or start a new run (the previous committed checkpoint is memory:step-2).',
    );
    expect(err.file).toBe('policy.safetensors');
  });

  it('a missing file, a truncated file, a damaged state.json', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    const without = new Map(files);
    without.delete('optimizer.safetensors');
    expect((await checkpointError(decodeCheckpoint(without))).message).toBe('checkpoint file optimizer.safetensors is missing; the checkpoint is incomplete.');
    const noState = new Map(files);
    noState.delete(STATE_FILE);
    expect((await checkpointError(decodeCheckpoint(noState))).message).toBe('checkpoint file state.json is missing; the checkpoint is incomplete.');
    const truncated = new Map(files);
    truncated.set('critic.safetensors', files.get('critic.safetensors')!.subarray(0, 100));
    expect((await checkpointError(decodeCheckpoint(truncated))).message).toMatch(
      /^checkpoint file critic.safetensors is corrupt \(100 bytes, state.json recorded \d+\)/,
    );
    const garbled = new Map(files);
    garbled.set(STATE_FILE, new TextEncoder().encode('{"format": "horizon.checkpoint/3", '));
    expect((await checkpointError(decodeCheckpoint(garbled))).message).toBe(
      'checkpoint file state.json is corrupt (not valid JSON); resume from an earlier checkpoint or start a new run.',
    );
    const wrong = new Map(files);
    const state = JSON.parse(new TextDecoder().decode(files.get(STATE_FILE)));
    wrong.set(STATE_FILE, await sealStateFile({ ...state, format: 'other/2' }));
    expect((await checkpointError(decodeCheckpoint(wrong))).message).toMatch(/^checkpoint file state.json is corrupt \(format: /);
  });

  it('a weight file whose tensors do not match the recorded model, even with matching sizes and hashes', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    // lm_head [13, 32] (the first [13, 32] in the header) relabelled [32, 13]: the same bytes and header length, another shape.
    const policy = new TextDecoder('latin1').decode(files.get('policy.safetensors'));
    const swapped = new Uint8Array([...policy.replace('"shape":[13,32]', '"shape":[32,13]')].map((c) => c.charCodeAt(0)));
    const state = JSON.parse(new TextDecoder().decode(files.get(STATE_FILE)));
    state.files['policy.safetensors'].sha256 = await sha256Hex(swapped);
    const edited = new Map(files);
    edited.set('policy.safetensors', swapped);
    edited.set(STATE_FILE, await sealStateFile(state));
    expect((await checkpointError(decodeCheckpoint(edited))).message).toMatch(
      /^checkpoint file policy.safetensors is corrupt \(tensor "lm_head.weight" has shape \[32, 13\], expected \[13, 32\]\)/,
    );
  });

  // docs/reliability.md §3.3: state.json is hashed, its models must be its recipe's, and no read
  // is larger than the sizes those models give.
  const stateOf = (files: Map<string, Uint8Array>) => JSON.parse(new TextDecoder().decode(files.get(STATE_FILE)));
  const withState = async (files: Map<string, Uint8Array>, state: Record<string, unknown>, seal = true) =>
    new Map(files).set(STATE_FILE, seal ? await sealStateFile(state) : new TextEncoder().encode(JSON.stringify(state, null, 1)));

  it('an edited state.json (a data cursor, an AdamW step) is refused, naming the file', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    const text = new TextDecoder().decode(files.get(STATE_FILE));
    for (const [from, to] of [
      ['"train": 8', '"train": 9'],
      ['"policy": 2', '"policy": 7'],
    ]) {
      expect(text).toContain(from);
      const edited = new Map(files).set(STATE_FILE, new TextEncoder().encode(text.replace(from, to)));
      expect((await checkpointError(decodeCheckpoint(edited))).message).toBe(
        'checkpoint file state.json is corrupt (its SHA-256 differs from the one it records: it was edited or damaged after it was written); resume from an earlier checkpoint or start a new run.',
      );
    }
  });

  it('a format-1 checkpoint (state.json without a hash) is refused in one sentence', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    const { sha256: _, ...v1 } = { ...stateOf(files), format: 'horizon.checkpoint/1' };
    expect((await checkpointError(decodeCheckpoint(await withState(files, v1, false)))).message).toBe(
      'checkpoint state.json has format horizon.checkpoint/1, whose state.json carries no hash, so an edit to it cannot be detected; this version loads horizon.checkpoint/3 and horizon.checkpoint/2: start a new run.',
    );
  });

  it("a format-2 checkpoint (no vocabulary, no trainer state) loads with its recipe's vocabulary and no trainer state", async () => {
    const ckpt = checkpoint(1);
    const files = await encodeCheckpoint(ckpt);
    // What format 2 wrote: no vocabulary in state.json, no trainer-state.json.
    const { vocabulary: _, files: listed, ...rest } = stateOf(files);
    const { [TRAINER_STATE_FILE]: __, ...v2Files } = listed;
    const v2 = await withState(files, { ...rest, format: 'horizon.checkpoint/2', files: v2Files });
    v2.delete(TRAINER_STATE_FILE);
    expect(await decodeCheckpoint(v2)).toEqual({ ...ckpt, trainerState: {} });
    // A format-3 state.json must have both.
    const noVocabulary = await withState(files, { ...rest, files: listed });
    expect((await checkpointError(decodeCheckpoint(noVocabulary))).message).toMatch(
      /it records no vocabulary, which every horizon.checkpoint\/3 checkpoint has/,
    );
  });

  it('carries the vocabulary, and refuses to resume with another one in one sentence naming the first differing id', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    expect(stateOf(files).vocabulary).toEqual(['<eos>', ...'0123456789+=']);
    const other = [...recipeVocabulary(recipe)];
    other[3] = 'x';
    expect((await checkpointError(decodeCheckpoint(await withState(files, { ...stateOf(files), vocabulary: other })))).message).toBe(
      'checkpoint state.json was written with a vocabulary of 13 tokens and this run\'s tokenizer has 13, differing first at id 3 ("x" there, "2" here), so its weights would read other characters; resume it with the Horizon version that wrote it or start a new run.',
    );
    // The vocabulary with <unk> appended: one id more.
    const withUnk = [...recipeVocabulary(recipe), '\uFFFD'];
    expect((await checkpointError(decodeCheckpoint(await withState(files, { ...stateOf(files), vocabulary: withUnk })))).message).toMatch(
      /a vocabulary of 14 tokens and this run's tokenizer has 13, differing first at id 13 \("\uFFFD" there, nothing here\)/,
    );
    await expect(encodeCheckpoint({ ...checkpoint(1), vocabulary: withUnk })).rejects.toThrow(
      "checkpoint vocabulary has 14 tokens, the policy's vocabSize is 13",
    );
  });

  it('named trainer state round-trips as trainer-state.json, hashed in state.json like the tensors', async () => {
    const trainerState = { lag: { ring: [3, 1, 2], head: 1 }, 'kto.z0': 0.125, stats: { count: 7, mean: -0.5, seen: [true, null, 'a'] } };
    const files = await encodeCheckpoint({ ...checkpoint(1), trainerState });
    expect(JSON.parse(new TextDecoder().decode(files.get(TRAINER_STATE_FILE)))).toEqual(trainerState);
    const record = stateOf(files).files[TRAINER_STATE_FILE];
    expect(record).toEqual({ bytes: files.get(TRAINER_STATE_FILE)!.length, sha256: await sha256Hex(files.get(TRAINER_STATE_FILE)!) });
    expect((await decodeCheckpoint(files)).trainerState).toEqual(trainerState);
    // An edit to the blob, even one that keeps its length, is refused like a damaged tensor.
    const text = new TextDecoder().decode(files.get(TRAINER_STATE_FILE));
    const edited = new Map(files).set(TRAINER_STATE_FILE, new TextEncoder().encode(text.replace('"head":1', '"head":2')));
    expect((await checkpointError(decodeCheckpoint(edited))).message).toBe(
      'checkpoint file trainer-state.json is corrupt (its SHA-256 differs from the one state.json recorded); resume from an earlier checkpoint or start a new run.',
    );
    const missing = new Map(files);
    missing.delete(TRAINER_STATE_FILE);
    expect((await checkpointError(decodeCheckpoint(missing))).message).toMatch(/checkpoint file trainer-state.json is missing/);
    const { [TRAINER_STATE_FILE]: _, ...otherFiles } = stateOf(files).files;
    expect((await checkpointError(decodeCheckpoint(await withState(files, { ...stateOf(files), files: otherFiles })))).message).toMatch(
      /it lists no trainer-state.json, which every horizon.checkpoint\/3 checkpoint has/,
    );
    // What could not be loaded back is not written.
    await expect(encodeCheckpoint({ ...checkpoint(1), trainerState: { Bad: 1 } })).rejects.toThrow(/trainer state is not storable: Bad/);
    await expect(encodeCheckpoint({ ...checkpoint(1), trainerState: { x: Number.NaN } })).rejects.toThrow(/trainer state is not storable: x/);
  });

  it('model sizes in state.json that its recipe does not build are refused before anything is allocated', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    for (const [key, value, message] of [
      ['vocabSize', 2 ** 40, 'models.policy.vocabSize is 1099511627776 but its recipe builds 13'],
      ['layers', 3_000_000, 'models.policy.layers is 3000000 but its recipe builds 2'],
    ] as const) {
      const state = stateOf(files);
      state.models.policy[key] = value;
      const reads: string[] = [];
      const reader = memoryReader(await withState(files, state));
      const spy: typeof reader = (file, max) => {
        reads.push(file);
        return reader(file, max);
      };
      expect((await checkpointError(decodeCheckpoint(spy))).message).toBe(
        `checkpoint file state.json is corrupt (${message}); resume from an earlier checkpoint or start a new run.`,
      );
      expect(reads).toEqual([STATE_FILE]);
    }
  });

  it('every read is capped: state.json at MAX_STATE_BYTES, the others at the exact size their models give', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    const caps = new Map<string, number>();
    const reader = memoryReader(files);
    await decodeCheckpoint((file, max) => {
      caps.set(file, max);
      return reader(file, max);
    });
    expect(caps.get(STATE_FILE)).toBe(MAX_STATE_BYTES);
    for (const [file, bytes] of files) if (file !== STATE_FILE) expect(caps.get(file)).toBe(bytes.length);
    // A file larger than its cap is never read: the store answers with its size.
    const huge: typeof reader = async (file, max) => (file === 'optimizer.safetensors' ? { size: 2 ** 40 } : reader(file, max));
    expect((await checkpointError(decodeCheckpoint(huge))).message).toMatch(
      /^checkpoint file optimizer.safetensors is corrupt \(1099511627776 bytes, state.json recorded \d+\)/,
    );
    const hugeState: typeof reader = async (file, max) => (file === STATE_FILE ? { size: 2 ** 32 } : reader(file, max));
    expect((await checkpointError(decodeCheckpoint(hugeState))).message).toMatch(
      /^checkpoint file state.json is corrupt \(4294967296 bytes, more than the 4194304/,
    );
    // A recorded size that the models do not give is refused before that file is read.
    const state = stateOf(files);
    state.files['critic.safetensors'].bytes = 2 ** 40;
    expect((await checkpointError(decodeCheckpoint(await withState(files, state)))).message).toMatch(
      /^checkpoint file state.json is corrupt \(it records 1099511627776 bytes for critic.safetensors, which its models make \d+\)/,
    );
  });

  it('a state.json nested 200,000 deep is refused without overflowing the stack', async () => {
    const files = await encodeCheckpoint(checkpoint(1));
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const text = new TextDecoder().decode(files.get(STATE_FILE)).replace('"extra": {', `"extra": {"deep": ${deep},`);
    const edited = new Map(files).set(STATE_FILE, new TextEncoder().encode(text));
    expect((await checkpointError(decodeCheckpoint(edited))).message).toBe(
      'checkpoint file state.json is corrupt (it nests more than 16 levels deep); resume from an earlier checkpoint or start a new run.',
    );
  });

  it('resuming with a different recipe names the first differing field; checkpoint fields may differ', async () => {
    const store = await storeWith(2);
    const other = resolveRecipe({ preset: 'tiny', sets: ['rl.epochs=3', 'seed=5'] }).recipe;
    expect((await checkpointError(loadCheckpoint(store, { recipe: other }))).message).toBe(
      'cannot resume from memory:step-2: it was trained with seed = 1 but this run asks for 5; resume with the same recipe and --set options, or start a new run.',
    );
    const relaxed = resolveRecipe({ preset: 'tiny', sets: ['checkpoint.keepLast=5'] }).recipe;
    expect((await loadCheckpoint(store, { recipe: relaxed })).step).toBe(2);
    // Logging every rollout changes what samples.jsonl gets, not what any iteration computes.
    expect(() => checkResumeRecipe(recipe, resolveRecipe({ preset: 'tiny', sets: ['log.allSamples=true'] }).recipe, 'x')).not.toThrow();
    expect(() => checkResumeRecipe(recipe, resolveRecipe({ preset: 'tiny', sets: ['rl.algorithm=rloo', 'rl.groupSize=2'] }).recipe, 'x')).toThrow(
      'cannot resume from x: it was trained with rl.algorithm = "ppo" but this run asks for "rloo"',
    );
  });
});

describe('retention and the store contract', () => {
  it('keeps the last k committed checkpoints and deletes only after the new one commits', async () => {
    const store = new MemoryCheckpointStore();
    for (const s of [1, 2, 3, 4]) await saveCheckpoint(store, checkpoint(s), { keepLast: 2 });
    expect(await store.list()).toEqual([3, 4]);
    const failing: CheckpointStore = Object.assign(Object.create(store), {
      write: async () => {
        throw new Error('disk full');
      },
    });
    await expect(saveCheckpoint(failing, checkpoint(5), { keepLast: 1 })).rejects.toThrow('disk full');
    expect(await store.list()).toEqual([3, 4]);
    expect((await checkpointError(saveCheckpoint(store, checkpoint(4), { keepLast: 2 }))).message).toBe(
      'checkpoint memory:step-4 already exists; refusing to overwrite it.',
    );
  });

  it('model-based: after any sequence of saves, failed saves and deletes, the latest committed checkpoint loads (C11)', async () => {
    type Model = { steps: number[] };
    class Save implements fc.AsyncCommand<Model, MemoryCheckpointStore> {
      constructor(readonly step: number) {}
      check = (m: Readonly<Model>) => !m.steps.includes(this.step);
      async run(m: Model, store: MemoryCheckpointStore) {
        await saveCheckpoint(store, checkpoint(this.step), { keepLast: 2 });
        m.steps = [...m.steps, this.step].sort((a, b) => a - b).slice(-2);
        if (!m.steps.includes(this.step)) m.steps.push(this.step);
        expect(await store.list()).toEqual(m.steps.sort((a, b) => a - b));
      }
      toString = () => `save(${this.step})`;
    }
    class Remove implements fc.AsyncCommand<Model, MemoryCheckpointStore> {
      check = (m: Readonly<Model>) => m.steps.length > 0;
      async run(m: Model, store: MemoryCheckpointStore) {
        await store.remove(m.steps[0]);
        m.steps = m.steps.slice(1);
      }
      toString = () => 'remove(oldest)';
    }
    class Load implements fc.AsyncCommand<Model, MemoryCheckpointStore> {
      check = () => true;
      async run(m: Model, store: MemoryCheckpointStore) {
        if (m.steps.length === 0) await expect(loadCheckpoint(store)).rejects.toThrow(CheckpointError);
        else expect((await loadCheckpoint(store)).step).toBe(m.steps.at(-1));
      }
      toString = () => 'load()';
    }
    await fc.assert(
      fc.asyncProperty(
        fc.commands([fc.integer({ min: 0, max: 8 }).map((s) => new Save(s)), fc.constant(new Remove()), fc.constant(new Load())], { maxCommands: 8 }),
        (cmds) => fc.asyncModelRun(() => ({ model: { steps: [] }, real: new MemoryCheckpointStore() }), cmds),
      ),
      { numRuns: 25 },
    );
  });
});

// A checkpoint as files: everything needed to continue a run bit-for-bit (docs/design.md §7;
// docs/reliability.md §3).
//
//   <model>.safetensors     one per model the run's method declares (algorithms/algorithm.ts), by
//                           name: policy.safetensors (nanoGPT/PyTorch names, "transformer.h.0.attn.
//                           c_attn.weight"), reference.safetensors (the frozen SFT policy), for PPO
//                           critic.safetensors (same naming with value_head.*); an SFT checkpoint
//                           holds the policy alone
//   optimizer.safetensors   AdamW moments as PyTorch names them: "policy.exp_avg.<param>", "policy.exp_avg_sq.<param>"
//   trainer-state.json      named trainer state other than weights, JSON (a rollout-lag ring buffer's
//                           cursor, KTO's reference point, running statistics): `trainerState`
//   state.json              its own SHA-256 (first key), format, step, recipe, the vocabulary (token
//                           texts in id order), model configs, AdamW step counts, every RNG state,
//                           data cursors, trainer extras, and the size and SHA-256 of every other file
//
// Loading trusts nothing it has not checked (docs/reliability.md §3.3): state.json is read with a small cap and its
// own hash verified (an edited data cursor or AdamW step is refused, not trained on); the models it
// records must be among the ones its recipe's method declares, with the configs the recipe builds; every other file is read capped at the exact size
// those models give it, then hashed. So no file can make the loader allocate more than the recipe
// needs. Format 3 added the vocabulary and trainer-state.json: a resume with another vocabulary is
// refused in one sentence (the same ids would read other characters). Format 2 still loads: it was
// written before any task's vocabulary changed, so its vocabulary is the one its recipe gives now,
// and it had no trainer state. Format 1 (no state hash) is refused with a sentence. Models are
// recorded as a map from name to config, so any declared name loads.
// Weights travel as flat f32 buffers in the model's ParameterLayout (model/parameters.ts); the
// files hold one tensor per parameter so a PyTorch user can load them with safetensors.torch.
// The alignment padding between parameters is not stored and reads back as 0.

import { z } from 'zod';
import { declaredModels } from '../algorithms/declared-models.ts';
import type { JsonValue } from '../envs/environment.ts';
import { echo, InputError, jsonDepthExceeds } from '../errors.ts';
import type { GptConfig } from '../model/config.ts';
import { type ParameterLayout, parameterLayout } from '../model/parameters.ts';
import { recipeVocabSize, recipeVocabulary } from '../recipe/fits.ts';
import { RecipeError, validateRecipe } from '../recipe/resolve.ts';
import type { Recipe } from '../recipe/schema.ts';
import { decodeSafetensors, encodeSafetensors, readF32, type SafetensorsFile, safetensorsByteLength, type TensorToWrite } from './safetensors.ts';

export const CHECKPOINT_FORMAT = 'horizon.checkpoint/3';
/** Loads too: a format-3 checkpoint without the vocabulary (its recipe's) and trainer-state.json (empty). */
const PREVIOUS_FORMAT = 'horizon.checkpoint/2';
/** Named trainer state (Checkpoint.trainerState), a JSON file hashed like the tensors. */
export const TRAINER_STATE_FILE = 'trainer-state.json';
/** A trainer-state entry's name: a key other code looks its state up by. */
export const TRAINER_STATE_NAME = /^[a-z][a-zA-Z0-9._-]{0,63}$/;
/** state.json holds a recipe, configs and a few counters: kilobytes. Anything past this is not one. */
export const MAX_STATE_BYTES = 4 * 1024 * 1024;
/** Nesting state.json needs (the recipe is 3 deep, extras a little more); deeper is refused before validation. */
const MAX_STATE_DEPTH = 16;
export const STATE_FILE = 'state.json';
/** A model's name becomes a file name and a tensor-name prefix: lowercase, no dots or slashes. */
export const MODEL_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** A missing, partial, corrupt or incompatible checkpoint; the message names the file. */
export class CheckpointError extends InputError {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super('checkpoint', message);
    this.name = 'InputError';
  }
}

export interface AdamState {
  /** Optimizer steps taken (bias correction depends on it). */
  step: number;
  m: Float32Array; // m: [layout.totalSize] f32, first moment
  v: Float32Array; // v: [layout.totalSize] f32, second moment
}

export interface ModelState {
  config: GptConfig;
  params: Float32Array; // params: [layout.totalSize] f32, flat parameter buffer
  /** Absent for a frozen model (the reference). */
  adam?: AdamState;
}

/** An RNG's saved state: one u32 (splitmix32) or several words (counter-based: seed, stream, counter). */
export type RngState = number | number[];

export interface Checkpoint {
  /** RL iteration (or SFT step) completed when the checkpoint was taken. */
  step: number;
  recipe: Recipe;
  /** Every model by name: the policy always, and during RL every other model the method declares. */
  models: CheckpointModels;
  /** Every random generator the run uses, by name (sampler, init, shuffle, …). */
  rng: Record<string, RngState>;
  /** Positions in every data stream, by name (e.g. train: next episode index, sft: next example). */
  dataCursor: Record<string, number>;
  /** The trainer's own bookkeeping (phase, SFT steps, elapsed seconds), JSON only. */
  extra: Record<string, JsonValue>;
  /** The tokenizer's vocabulary, token texts in id order (CharTokenizer.pieceList): a resume with another is refused. */
  vocabulary: string[];
  /** Named state of the training components (train/trainer-state.ts), JSON only, stored in trainer-state.json. */
  trainerState: Record<string, JsonValue>;
}

const safeUint = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const gptConfig = z.strictObject({
  vocabSize: safeUint,
  contextLength: safeUint,
  layers: safeUint,
  heads: safeUint,
  width: safeUint,
  head: z.enum(['lm', 'value']),
});
export type CheckpointModels = { policy: ModelState } & Record<string, ModelState>;

const StateSchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  format: z.enum([CHECKPOINT_FORMAT, PREVIOUS_FORMAT]),
  step: safeUint,
  recipe: z.record(z.string(), z.unknown()),
  models: z
    .record(z.string().regex(MODEL_NAME, 'model names are lowercase letters, digits and "-"'), gptConfig)
    .refine((models) => Object.hasOwn(models, 'policy'), 'it records no policy model'),
  adamSteps: z.record(z.string(), safeUint),
  rng: z.record(z.string(), z.union([safeUint, z.array(safeUint)])),
  dataCursor: z.record(z.string(), safeUint),
  extra: z.record(z.string(), z.json()),
  vocabulary: z.array(z.string()).min(1).optional(),
  files: z.record(z.string(), z.strictObject({ bytes: safeUint, sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type CheckpointStateFile = z.infer<typeof StateSchema>;
const TrainerStateSchema = z.record(z.string().regex(TRAINER_STATE_NAME, 'trainer-state names start with a lowercase letter'), z.json());

/**
 * Refuses a checkpoint whose vocabulary is not `expected` (the one this run's tokenizer has), in one
 * sentence naming the first differing id; `where` names the checkpoint. A checkpoint with no
 * vocabulary (format 2, or a browser checkpoint saved before checkpoints carried one) was written
 * before any task's vocabulary changed, so it has the one its recipe gives: it passes.
 */
export function checkVocabulary(saved: readonly string[] | undefined, expected: readonly string[], where: string): void {
  if (!saved) return;
  const at = saved.length === expected.length ? saved.findIndex((piece, i) => piece !== expected[i]) : Math.min(saved.length, expected.length);
  if (at === -1) return;
  const piece = (list: readonly string[]) => (at < list.length ? JSON.stringify(list[at]) : 'nothing');
  throw new CheckpointError(
    `${where} was written with a vocabulary of ${saved.length} tokens and this run's tokenizer has ${expected.length}, differing first at id ${at} (${piece(saved)} there, ${piece(expected)} here), so its weights would read other characters; resume it with the Horizon version that wrote it or start a new run.`,
  );
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

function checkFlat(name: string, what: string, data: Float32Array, layout: ParameterLayout): void {
  if (data.length !== layout.totalSize) throw new RangeError(`checkpoint ${name}.${what} has ${data.length} values, its layout needs ${layout.totalSize}`);
}

function namedTensors(layout: ParameterLayout, flat: Float32Array, prefix = ''): Record<string, TensorToWrite> {
  const out: Record<string, TensorToWrite> = {};
  for (const e of layout.entries) out[prefix + e.name] = { dtype: 'F32', shape: e.shape, data: flat.subarray(e.offset, e.offset + e.size) };
  return out;
}

function flatFrom(file: SafetensorsFile, layout: ParameterLayout, prefix = ''): Float32Array {
  const flat = new Float32Array(layout.totalSize);
  for (const e of layout.entries) flat.set(readF32(file, prefix + e.name, e.shape), e.offset);
  return flat;
}

/** Serialises a checkpoint to its files (state.json last in the map: stores write it last). */
export async function encodeCheckpoint(ckpt: Checkpoint): Promise<Map<string, Uint8Array>> {
  if (!Number.isSafeInteger(ckpt.step) || ckpt.step < 0) throw new RangeError(`checkpoint step must be a non-negative integer, got ${ckpt.step}`);
  const files = new Map<string, Uint8Array>();
  const meta = { format: 'pt', step: String(ckpt.step) };
  const optimizer: Record<string, TensorToWrite> = {};
  const adamSteps: Record<string, number> = {};
  const models: Record<string, GptConfig> = {};
  for (const [name, model] of Object.entries(ckpt.models)) {
    if (!MODEL_NAME.test(name)) throw new RangeError(`checkpoint model name "${name}" must be lowercase letters, digits and "-"`);
    const layout = parameterLayout(model.config);
    checkFlat(name, 'params', model.params, layout);
    models[name] = model.config;
    files.set(`${name}.safetensors`, encodeSafetensors(namedTensors(layout, model.params), { ...meta, model: name }));
    if (model.adam) {
      checkFlat(name, 'adam.m', model.adam.m, layout);
      checkFlat(name, 'adam.v', model.adam.v, layout);
      Object.assign(optimizer, namedTensors(layout, model.adam.m, `${name}.exp_avg.`), namedTensors(layout, model.adam.v, `${name}.exp_avg_sq.`));
      adamSteps[name] = model.adam.step;
    }
  }
  if (Object.keys(optimizer).length > 0) files.set('optimizer.safetensors', encodeSafetensors(optimizer, meta));
  if (ckpt.vocabulary.length !== ckpt.models.policy.config.vocabSize)
    throw new RangeError(`checkpoint vocabulary has ${ckpt.vocabulary.length} tokens, the policy's vocabSize is ${ckpt.models.policy.config.vocabSize}`);
  const trainerState = TrainerStateSchema.safeParse(ckpt.trainerState);
  if (!trainerState.success)
    throw new RangeError(`checkpoint trainer state is not storable: ${trainerState.error.issues[0].path.join('.')} ${trainerState.error.issues[0].message}`);
  // Refused here rather than written and then refused on resume.
  if (jsonDepthExceeds(ckpt.trainerState, MAX_STATE_DEPTH)) throw new RangeError(`checkpoint trainer state nests more than ${MAX_STATE_DEPTH} levels deep`);
  const trainerStateBytes = new TextEncoder().encode(`${JSON.stringify(ckpt.trainerState)}\n`);
  if (trainerStateBytes.length > MAX_STATE_BYTES)
    throw new RangeError(`checkpoint trainer state is ${trainerStateBytes.length} bytes as JSON, more than the ${MAX_STATE_BYTES} a state file holds`);
  files.set(TRAINER_STATE_FILE, trainerStateBytes);
  const hashes: Record<string, { bytes: number; sha256: string }> = {};
  for (const [name, bytes] of files) hashes[name] = { bytes: bytes.length, sha256: await sha256Hex(bytes) };
  const state: CheckpointStateFile = {
    sha256: UNHASHED,
    format: CHECKPOINT_FORMAT,
    step: ckpt.step,
    recipe: ckpt.recipe as unknown as Record<string, unknown>,
    models: models as CheckpointStateFile['models'],
    adamSteps,
    rng: ckpt.rng,
    dataCursor: ckpt.dataCursor,
    extra: ckpt.extra,
    vocabulary: ckpt.vocabulary,
    files: hashes,
  };
  const parsed = StateSchema.safeParse(state);
  if (!parsed.success) throw new RangeError(`checkpoint state is not storable: ${parsed.error.issues[0].path.join('.')} ${parsed.error.issues[0].message}`);
  files.set(STATE_FILE, await sealStateFile(state));
  return files;
}

/** state.json's bytes for `state` (any JSON object), with its own SHA-256 as the first key. */
export async function sealStateFile(state: Record<string, unknown>): Promise<Uint8Array> {
  const { sha256: _, ...rest } = state;
  const bytes = new TextEncoder().encode(`${JSON.stringify({ sha256: UNHASHED, ...rest }, null, 1)}\n`);
  bytes.set(new TextEncoder().encode(await sha256Hex(bytes)), STATE_HASH_AT);
  return bytes;
}

// state.json hashes itself: its first key is "sha256", whose value is the SHA-256 of the file with
// that value written as 64 zeros. Any store then keeps it covered, with no separate manifest.
const UNHASHED = '0'.repeat(64);
const STATE_PREFIX = new TextEncoder().encode('{\n "sha256": "');
const STATE_HASH_AT = STATE_PREFIX.length;

/** The hash state.json records for itself, and the one its bytes have; undefined if it records none. */
async function stateHashes(bytes: Uint8Array): Promise<{ recorded: string; actual: string } | undefined> {
  if (bytes.length < STATE_HASH_AT + 64 || STATE_PREFIX.some((b, i) => bytes[i] !== b)) return undefined;
  const recorded = new TextDecoder().decode(bytes.subarray(STATE_HASH_AT, STATE_HASH_AT + 64));
  const zeroed = bytes.slice();
  zeroed.fill(0x30, STATE_HASH_AT, STATE_HASH_AT + 64);
  return { recorded, actual: await sha256Hex(zeroed) };
}

/** One file of a checkpoint, read with a cap: its bytes (and SHA-256, if the store hashed as it read), or its size when over the cap. */
export type CheckpointFileRead = { bytes: Uint8Array; sha256?: string } | { size: number };
/** Reads one file of a checkpoint, at most `maxBytes`; throws a CheckpointError if it is missing or not a file. */
export type CheckpointReader = (file: string, maxBytes: number) => Promise<CheckpointFileRead>;

/** A reader over files already in memory (tests, and stores that hold whole checkpoints). */
export function memoryReader(files: ReadonlyMap<string, Uint8Array>, where: (file: string) => string = (f) => f): CheckpointReader {
  return async (file, maxBytes) => {
    const bytes = files.get(file);
    if (!bytes) throw new CheckpointError(`checkpoint file ${where(file)} is missing; the checkpoint is incomplete.`, file);
    return bytes.length > maxBytes ? { size: bytes.length } : { bytes };
  };
}

/** The files, and their exact sizes, that encodeCheckpoint writes for these models at this step. */
function expectedFiles(step: number, models: Readonly<Record<string, GptConfig>>, adamModels: readonly string[]): Map<string, number> {
  const meta = { format: 'pt', step: String(step) };
  const tensors = (layout: ParameterLayout, prefix = '') =>
    layout.entries.map((e) => ({ name: prefix + e.name, dtype: 'F32' as const, shape: e.shape, bytes: 4 * e.size }));
  const out = new Map<string, number>();
  const optimizer: ReturnType<typeof tensors> = [];
  for (const [name, config] of Object.entries(models)) {
    const layout = parameterLayout(config);
    out.set(`${name}.safetensors`, safetensorsByteLength(tensors(layout), { ...meta, model: name }));
    if (adamModels.includes(name)) optimizer.push(...tensors(layout, `${name}.exp_avg.`), ...tensors(layout, `${name}.exp_avg_sq.`));
  }
  if (optimizer.length > 0) out.set('optimizer.safetensors', safetensorsByteLength(optimizer, meta));
  return out;
}

const sameConfig = (a: GptConfig, b: GptConfig) => (Object.keys(b) as (keyof GptConfig)[]).every((k) => a[k] === b[k]);

/**
 * Rebuilds a checkpoint from its files, verifying state.json's own hash, its models against its
 * recipe, and every other file's size and SHA-256 before decoding it. `files` is a reader (or the
 * files in memory); `where(file)` names a file for messages (a path on disk, a key in IndexedDB).
 */
export async function decodeCheckpoint(
  files: ReadonlyMap<string, Uint8Array> | CheckpointReader,
  where: (file: string) => string = (f) => f,
): Promise<Checkpoint> {
  const read = typeof files === 'function' ? files : memoryReader(files, where);
  const corrupt = (file: string, why: string): never => {
    throw new CheckpointError(`checkpoint file ${where(file)} is corrupt (${why}); resume from an earlier checkpoint or start a new run.`, file);
  };
  const stateRead = await read(STATE_FILE, MAX_STATE_BYTES);
  if (!('bytes' in stateRead)) return corrupt(STATE_FILE, `${stateRead.size} bytes, more than the ${MAX_STATE_BYTES} a state file holds`);
  const stateBytes = stateRead.bytes;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(stateBytes));
  } catch {
    corrupt(STATE_FILE, 'not valid JSON');
  }
  if (jsonDepthExceeds(json, MAX_STATE_DEPTH)) corrupt(STATE_FILE, `it nests more than ${MAX_STATE_DEPTH} levels deep`);
  const format = (json as { format?: unknown } | null)?.format;
  if (format === 'horizon.checkpoint/1')
    throw new CheckpointError(
      `checkpoint ${where(STATE_FILE)} has format horizon.checkpoint/1, whose state.json carries no hash, so an edit to it cannot be detected; this version loads ${CHECKPOINT_FORMAT} and ${PREVIOUS_FORMAT}: start a new run.`,
      STATE_FILE,
    );
  const hashes = await stateHashes(stateBytes);
  if (!hashes) corrupt(STATE_FILE, 'it does not start with its own SHA-256');
  else if (hashes.recorded !== hashes.actual) corrupt(STATE_FILE, 'its SHA-256 differs from the one it records: it was edited or damaged after it was written');
  const parsed = StateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return corrupt(STATE_FILE, `${echo(issue.path.join('.')) || 'the file'}: ${echo(issue.message)}`);
  }
  const state = parsed.data;
  let recipe: Recipe;
  try {
    recipe = validateRecipe(state.recipe);
  } catch (error) {
    if (!(error instanceof RecipeError)) throw error;
    throw new CheckpointError(`the recipe in ${where(STATE_FILE)} is not valid for this version of Horizon (${error.message.split('\n')[0]}).`, STATE_FILE);
  }
  // The vocabulary first: with another one, every size below would differ for a reason worth naming.
  const current = state.format === CHECKPOINT_FORMAT;
  if (current && !state.vocabulary) corrupt(STATE_FILE, `it records no vocabulary, which every ${CHECKPOINT_FORMAT} checkpoint has`);
  const vocabulary = state.vocabulary ?? recipeVocabulary(recipe);
  checkVocabulary(vocabulary, recipeVocabulary(recipe), `checkpoint ${where(STATE_FILE)}`);
  // The models must be ones the recipe's method declares, with the configs the recipe builds for
  // them, before any size derived from them is trusted.
  const declared = new Map(declaredModels(recipe, recipeVocabSize(recipe)).map((model) => [model.name, model]));
  for (const [name, config] of Object.entries(state.models)) {
    const want = declared.get(name);
    if (!want) corrupt(STATE_FILE, `it records a model "${echo(name)}", which ${recipe.rl.algorithm} does not declare`);
    else if (!sameConfig(config, want.config)) {
      const key = (Object.keys(config) as (keyof GptConfig)[]).find((k) => config[k] !== want.config[k]) as keyof GptConfig;
      corrupt(STATE_FILE, `models.${name}.${key} is ${echo(String(config[key]))} but its recipe builds ${want.config[key]}`);
    }
  }
  for (const name of Object.keys(state.adamSteps))
    if (!Object.hasOwn(state.models, name)) corrupt(STATE_FILE, `it records AdamW steps for a model it does not have, "${echo(name)}"`);
  const expected = expectedFiles(state.step, state.models, Object.keys(state.adamSteps));
  for (const file of Object.keys(state.files))
    if (!expected.has(file) && !(current && file === TRAINER_STATE_FILE)) corrupt(STATE_FILE, `it lists a file no checkpoint has, "${echo(file)}"`);
  const bytesOf = new Map<string, Uint8Array>();
  for (const [file, size] of expected) {
    const record = state.files[file];
    if (!record) corrupt(STATE_FILE, `it lists no ${file}, which its models need`);
    if (record.bytes !== size) corrupt(STATE_FILE, `it records ${record.bytes} bytes for ${file}, which its models make ${size}`);
    const got = await read(file, size);
    if (!('bytes' in got)) return corrupt(file, `${got.size} bytes, ${STATE_FILE} recorded ${size}`);
    if (got.bytes.length !== size) corrupt(file, `${got.bytes.length} bytes, ${STATE_FILE} recorded ${size}`);
    if ((got.sha256 ?? (await sha256Hex(got.bytes))) !== record.sha256) corrupt(file, `its SHA-256 differs from the one ${STATE_FILE} recorded`);
    bytesOf.set(file, got.bytes);
  }
  const trainerState = current ? await readTrainerState(read, state.files[TRAINER_STATE_FILE], corrupt) : {};
  const decode = (file: string): SafetensorsFile => {
    try {
      return decodeSafetensors(bytesOf.get(file) as Uint8Array);
    } catch (error) {
      if (error instanceof InputError) corrupt(file, error.message);
      throw error;
    }
  };
  const optimizer = bytesOf.has('optimizer.safetensors') ? decode('optimizer.safetensors') : undefined;
  const models: Record<string, ModelState> = {};
  for (const [name, config] of Object.entries(state.models)) {
    const file = `${name}.safetensors`;
    const layout = parameterLayout(config);
    const readFlat = (f: SafetensorsFile, fileName: string, prefix = '') => {
      try {
        return flatFrom(f, layout, prefix);
      } catch (error) {
        if (error instanceof InputError) return corrupt(fileName, error.message);
        throw error;
      }
    };
    const model: ModelState = { config, params: readFlat(decode(file), file) };
    const step = state.adamSteps[name];
    if (step !== undefined && optimizer) {
      model.adam = {
        step,
        m: readFlat(optimizer, 'optimizer.safetensors', `${name}.exp_avg.`),
        v: readFlat(optimizer, 'optimizer.safetensors', `${name}.exp_avg_sq.`),
      };
    }
    models[name] = model;
  }
  return {
    step: state.step,
    recipe,
    models: models as CheckpointModels,
    rng: state.rng,
    dataCursor: state.dataCursor,
    extra: state.extra as Record<string, JsonValue>,
    vocabulary,
    trainerState,
  };
}

/** trainer-state.json, capped at what state.json recorded for it (at most MAX_STATE_BYTES), hashed, parsed and checked. */
async function readTrainerState(
  read: CheckpointReader,
  record: { bytes: number; sha256: string } | undefined,
  corrupt: (file: string, why: string) => never,
): Promise<Record<string, JsonValue>> {
  const file = TRAINER_STATE_FILE;
  if (!record) return corrupt(STATE_FILE, `it lists no ${file}, which every ${CHECKPOINT_FORMAT} checkpoint has`);
  if (record.bytes > MAX_STATE_BYTES)
    return corrupt(STATE_FILE, `it records ${record.bytes} bytes for ${file}, more than the ${MAX_STATE_BYTES} a state file holds`);
  const got = await read(file, record.bytes);
  if (!('bytes' in got)) return corrupt(file, `${got.size} bytes, ${STATE_FILE} recorded ${record.bytes}`);
  if (got.bytes.length !== record.bytes) return corrupt(file, `${got.bytes.length} bytes, ${STATE_FILE} recorded ${record.bytes}`);
  if ((got.sha256 ?? (await sha256Hex(got.bytes))) !== record.sha256) return corrupt(file, `its SHA-256 differs from the one ${STATE_FILE} recorded`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(got.bytes));
  } catch {
    return corrupt(file, 'not valid JSON');
  }
  if (jsonDepthExceeds(json, MAX_STATE_DEPTH)) return corrupt(file, `it nests more than ${MAX_STATE_DEPTH} levels deep`);
  const parsed = TrainerStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return corrupt(file, `${echo(issue.path.join('.')) || 'the file'}: ${echo(issue.message)}`);
  }
  return parsed.data as Record<string, JsonValue>;
}

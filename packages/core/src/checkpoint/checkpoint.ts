// A checkpoint as files: everything needed to continue a run bit-for-bit (DESIGN.md, "Recipes,
// runs, checkpoints"; reference/reliability.md §3).
//
//   policy.safetensors      policy weights, nanoGPT/PyTorch names ("transformer.h.0.attn.c_attn.weight")
//   critic.safetensors      critic weights (PPO), same naming with value_head.*
//   reference.safetensors   the frozen reference (SFT) policy the KL is measured against
//   optimizer.safetensors   AdamW moments as PyTorch names them: "policy.exp_avg.<param>", "policy.exp_avg_sq.<param>"
//   state.json              format, step, recipe, model configs, AdamW step counts, every RNG state,
//                           data cursors, trainer extras, and the size and SHA-256 of every other file
//
// Weights travel as flat f32 buffers in the model's ParameterLayout (model/parameters.ts); the
// files hold one tensor per parameter so a PyTorch user can load them with safetensors.torch.
// The alignment padding between parameters is not stored and reads back as 0.

import { z } from 'zod';
import type { JsonValue } from '../envs/environment.ts';
import { InputError } from '../errors.ts';
import type { GptConfig } from '../model/config.ts';
import { type ParameterLayout, parameterLayout } from '../model/parameters.ts';
import { RecipeError, validateRecipe } from '../recipe/resolve.ts';
import type { Recipe } from '../recipe/schema.ts';
import { decodeSafetensors, encodeSafetensors, readF32, type SafetensorsFile, type TensorToWrite } from './safetensors.ts';

export const CHECKPOINT_FORMAT = 'horizon.checkpoint/1';
export const STATE_FILE = 'state.json';
export const MODEL_NAMES = ['policy', 'critic', 'reference'] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

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
  /** Absent for the frozen reference. */
  adam?: AdamState;
}

/** An RNG's saved state: one u32 (splitmix32) or several words (counter-based: seed, stream, counter). */
export type RngState = number | number[];

export interface Checkpoint {
  /** RL iteration (or SFT step) completed when the checkpoint was taken. */
  step: number;
  recipe: Recipe;
  policy: ModelState;
  critic?: ModelState;
  reference?: ModelState;
  /** Every random generator the run uses, by name (sampler, init, shuffle, …). */
  rng: Record<string, RngState>;
  /** Positions in every data stream, by name (e.g. train: next episode index, sft: next example). */
  dataCursor: Record<string, number>;
  /** Anything else the trainer must restore (phase, running statistics), JSON only. */
  extra: Record<string, JsonValue>;
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
const StateSchema = z.strictObject({
  format: z.literal(CHECKPOINT_FORMAT),
  step: safeUint,
  recipe: z.record(z.string(), z.unknown()),
  models: z.strictObject({ policy: gptConfig, critic: gptConfig.optional(), reference: gptConfig.optional() }),
  adamSteps: z.record(z.string(), safeUint),
  rng: z.record(z.string(), z.union([safeUint, z.array(safeUint)])),
  dataCursor: z.record(z.string(), safeUint),
  extra: z.record(z.string(), z.json()),
  files: z.record(z.string(), z.strictObject({ bytes: safeUint, sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type CheckpointStateFile = z.infer<typeof StateSchema>;

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
  for (const name of MODEL_NAMES) {
    const model = ckpt[name];
    if (!model) continue;
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
  const hashes: Record<string, { bytes: number; sha256: string }> = {};
  for (const [name, bytes] of files) hashes[name] = { bytes: bytes.length, sha256: await sha256Hex(bytes) };
  const state: CheckpointStateFile = {
    format: CHECKPOINT_FORMAT,
    step: ckpt.step,
    recipe: ckpt.recipe as unknown as Record<string, unknown>,
    models: models as CheckpointStateFile['models'],
    adamSteps,
    rng: ckpt.rng,
    dataCursor: ckpt.dataCursor,
    extra: ckpt.extra,
    files: hashes,
  };
  const parsed = StateSchema.safeParse(state);
  if (!parsed.success) throw new RangeError(`checkpoint state is not storable: ${parsed.error.issues[0].path.join('.')} ${parsed.error.issues[0].message}`);
  files.set(STATE_FILE, new TextEncoder().encode(`${JSON.stringify(state, null, 1)}\n`));
  return files;
}

/**
 * Rebuilds a checkpoint from its files, verifying sizes and SHA-256 first. `where(file)` names a
 * file for messages (a path on disk, a key in IndexedDB).
 */
export async function decodeCheckpoint(files: ReadonlyMap<string, Uint8Array>, where: (file: string) => string = (f) => f): Promise<Checkpoint> {
  const stateBytes = files.get(STATE_FILE);
  if (!stateBytes) throw new CheckpointError(`checkpoint file ${where(STATE_FILE)} is missing; the checkpoint is incomplete.`, STATE_FILE);
  const corrupt = (file: string, why: string): never => {
    throw new CheckpointError(`checkpoint file ${where(file)} is corrupt (${why}); resume from an earlier checkpoint or start a new run.`, file);
  };
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(stateBytes));
  } catch {
    corrupt(STATE_FILE, 'not valid JSON');
  }
  const parsed = StateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return corrupt(STATE_FILE, `${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  const state = parsed.data;
  for (const [file, expect] of Object.entries(state.files)) {
    const bytes = files.get(file);
    if (!bytes) throw new CheckpointError(`checkpoint file ${where(file)} is missing; the checkpoint is incomplete.`, file);
    if (bytes.length !== expect.bytes) corrupt(file, `${bytes.length} bytes, ${STATE_FILE} recorded ${expect.bytes}`);
    if ((await sha256Hex(bytes)) !== expect.sha256) corrupt(file, `its SHA-256 differs from the one ${STATE_FILE} recorded`);
  }
  let recipe: Recipe;
  try {
    recipe = validateRecipe(state.recipe);
  } catch (error) {
    if (!(error instanceof RecipeError)) throw error;
    throw new CheckpointError(`the recipe in ${where(STATE_FILE)} is not valid for this version of Horizon (${error.message.split('\n')[0]}).`, STATE_FILE);
  }
  const decode = (file: string): SafetensorsFile => {
    try {
      return decodeSafetensors(files.get(file) as Uint8Array);
    } catch (error) {
      if (error instanceof InputError) corrupt(file, error.message);
      throw error;
    }
  };
  const optimizer = files.has('optimizer.safetensors') && state.files['optimizer.safetensors'] ? decode('optimizer.safetensors') : undefined;
  const models: Partial<Record<ModelName, ModelState>> = {};
  for (const name of MODEL_NAMES) {
    const config = state.models[name];
    if (!config) continue;
    const file = `${name}.safetensors`;
    if (!state.files[file]) corrupt(STATE_FILE, `it lists a ${name} model but no ${file}`);
    let layout: ParameterLayout;
    try {
      layout = parameterLayout(config);
    } catch (error) {
      return corrupt(STATE_FILE, `models.${name}: ${(error as Error).message}`);
    }
    const read = (f: SafetensorsFile, fileName: string, prefix = '') => {
      try {
        return flatFrom(f, layout, prefix);
      } catch (error) {
        if (error instanceof InputError) return corrupt(fileName, error.message);
        throw error;
      }
    };
    const model: ModelState = { config, params: read(decode(file), file) };
    const step = state.adamSteps[name];
    if (step !== undefined) {
      if (!optimizer) return corrupt(STATE_FILE, `it records ${name} AdamW steps but there is no optimizer.safetensors`);
      model.adam = {
        step,
        m: read(optimizer, 'optimizer.safetensors', `${name}.exp_avg.`),
        v: read(optimizer, 'optimizer.safetensors', `${name}.exp_avg_sq.`),
      };
    }
    models[name] = model;
  }
  return {
    step: state.step,
    recipe,
    policy: models.policy as ModelState,
    ...(models.critic ? { critic: models.critic } : {}),
    ...(models.reference ? { reference: models.reference } : {}),
    rng: state.rng,
    dataCursor: state.dataCursor,
    extra: state.extra as Record<string, JsonValue>,
  };
}

// Whether a recipe the schema accepts can run on this device, decided before anything is written:
// the kernels' own limits (head width, 32-bit indices, dispatch sizes), the largest buffer a run
// allocates against the device's maxBufferSize and maxStorageBufferBindingSize, and the memory the
// whole run holds against a host budget (width 1024 with 4 heads once died in the attention
// kernel after the run directory existed; 4096 × 64 layers in a typed-array allocation; 4096 × 1
// layer at 4.2 GB RSS).
//
// Shape legend:  B rows · T training positions · Tc context length · V vocab · D width · H heads ·
// L layers · P flat parameters (alignment padding included)
//
// The estimate follows what the trainer allocates (model/gpt.ts, model/generate.ts,
// model/optimizer.ts, train/*.ts), with T at its largest (the longest OOD prompt plus every new
// token, rounded up as train/rows.ts does); it is an upper bound within a few percent, not a count.

import { MATMUL_BLOCKING, MAX_HEAD_DIM, matmulTile } from '@horizon/kernels';
import { declaredModels } from '../algorithms/declared-models.ts';
import { generativeCriticConfig } from '../algorithms/genac/critic-vocabulary.ts';
import { declaresRole } from '../algorithms/index.ts';
import { taskLimits, taskVocabulary } from '../envs/tasks.ts';
import type { GptConfig } from '../model/config.ts';
import { parameterLayout } from '../model/parameters.ts';
import { prefillBufferRows, prefillChunkCap } from '../model/prefill-chunks.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { isLagModelName } from '../train/policy-history.ts';
import { trainingLength } from '../train/rows.ts';
import { teacherRuns } from '../train/teachers.ts';
import { criticSizes, modelConfigs } from './checks.ts';
import { RecipeError } from './resolve.ts';
import type { Recipe } from './schema.ts';

/** The device limits the check reads (a GPUSupportedLimits or a DeviceReport's limits). */
export interface FitLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
  maxComputeWorkgroupsPerDimension: number;
}

export interface FitOptions {
  /** Bytes the run may hold in host memory (typed arrays, checkpoint encoding). */
  hostMemoryBytes: number;
  /** A software device (SwiftShader) keeps its buffers in host memory too. */
  deviceInHostMemory: boolean;
  /**
   * The configs of the loaded teachers (distillation), in `distill.teachers` order; without them each
   * teacher the recipe names is sized as the student's policy (a teacher must share its vocabulary
   * and context, not its width or depth).
   */
  teachers?: readonly GptConfig[];
}

export interface RecipeFootprint {
  /** Bytes of GPU buffers the run allocates at most. */
  deviceBytes: number;
  /** Bytes of host memory the run holds at most (checkpoint time). */
  hostBytes: number;
  /** The largest single buffer, in bytes, and what it is. */
  largest: { bytes: number; what: string };
}

/** Every checkpoint file is hashed with WebCrypto, whose digest takes less than 2 GiB. */
export const MAX_CHECKPOINT_FILE_BYTES = 2 ** 31 - 1;
/** Typed arrays index with 32 bits in the kernels (N·V, B·H·T·T): larger counts overflow them. */
const MAX_ELEMENTS = 2 ** 32 - 1;

/** Tokens in the recipe's task vocabulary (character-level: the task's characters plus specials, and <unk> unless it opts out). */
export function recipeVocabSize(recipe: Recipe): number {
  return recipeVocabulary(recipe).length;
}

/** The recipe's task vocabulary as token texts in id order (CharTokenizer.pieceList): what checkpoints record. */
export function recipeVocabulary(recipe: Recipe): string[] {
  return new CharTokenizer(taskVocabulary(recipe.task)).pieceList();
}

const GB = (bytes: number) => (bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${Math.ceil(bytes / 2 ** 20)} MiB`);

interface Buffer {
  bytes: number;
  what: string;
  /** The recipe field to change. */
  field: string;
}

/** One model's buffers for a forward and backward at (B, T), as gpt.ts allocates them. */
function activationBuffers(c: GptConfig, B: number, T: number, label: string, field: string): { total: number; buffers: Buffer[] } {
  const { width: D, heads: H, layers: L, vocabSize: V } = c;
  const N = B * T;
  const out = c.head === 'lm' ? N * V : N;
  const att = B * H * T * T;
  // Per layer 16·N·D (5 [N,D], qkv 3, fc and gelu 4 each) + att + 4N stats; outside the layers
  // embedded, residualOut, lnf, two [N,D] and one [N,3D] backward scratch, one [N,4D], the output.
  const floats = L * (16 * N * D + att + 4 * N) + 8 * N * D + 4 * N * D + 2 * N + out;
  return {
    total: 4 * floats,
    buffers: [
      { bytes: 4 * att, what: `${label} attention scores [B=${B}, H=${H}, T=${T}, T]`, field },
      { bytes: 4 * N * 4 * D, what: `${label} MLP activations [B·T=${N}, 4D=${4 * D}]`, field },
      { bytes: 4 * out, what: `${label} ${c.head === 'lm' ? 'logits' : 'values'} [B·T=${N}${c.head === 'lm' ? `, V=${V}` : ''}]`, field },
    ],
  };
}

/** A model's KV caches and decode buffers for B rows (generate.ts). */
function decodeBuffers(c: GptConfig, B: number, label: string, field: string): { total: number; buffers: Buffer[] } {
  const { width: D, layers: L, vocabSize: V, contextLength: Tc } = c;
  const cache = B * Tc * D; // per layer and for K and V: [B, H, Tc, hd]
  // Per row: x, ln, attn, mid (D each), qkv (3D), fc and gelu (4D each), the logits, three [Tc] and a few scalars.
  // Prefill passes: the same activations and LayerNorm stats per query row, for every pass length a state may hold.
  const prefillRows = prefillBufferRows(B, Tc);
  const passRows = B * prefillChunkCap(B, Tc); // the longest pass's rows: its buffers are the largest
  const floats = 2 * L * cache + B * (15 * D + V + 3 * Tc + 8) + prefillRows * (15 * D + 2);
  return {
    total: 4 * floats,
    buffers: [
      { bytes: 4 * cache, what: `${label} KV cache per layer [B=${B}, Tc=${Tc}, D=${D}]`, field },
      { bytes: 4 * passRows * 4 * D, what: `${label} prefill MLP activations [B·S=${passRows}, 4D=${4 * D}]`, field },
    ],
  };
}

/**
 * Throws a RecipeError (one sentence naming the field to change) if the recipe cannot run on a
 * device with `limits`; returns the estimate otherwise.
 */
export function checkRecipeFitsDevice(recipe: Recipe, vocabSize: number, limits: FitLimits, options: FitOptions): RecipeFootprint {
  const refuse = (message: string): never => {
    throw new RecipeError(message, []);
  };
  const { rl, sft, eval: ev, model } = recipe;
  const usesCritic = declaresRole(recipe, 'critic');
  const usesGenerativeCritic = declaresRole(recipe, 'generative-critic');
  const critic = criticSizes(recipe);
  // Kernel limits first: they hold on every device.
  for (const [path, shape] of [['model.policy', model.policy], ...(usesCritic || usesGenerativeCritic ? [['model.critic', critic] as const] : [])] as const) {
    const hd = shape.width / shape.heads;
    if (hd > MAX_HEAD_DIM)
      refuse(
        `${path}.width ${shape.width} with ${shape.heads} heads gives heads ${hd} wide, more than the ${MAX_HEAD_DIM} the attention kernels support; use ${path}.heads ≥ ${Math.ceil(shape.width / MAX_HEAD_DIM)} or ${path}.width ≤ ${MAX_HEAD_DIM * shape.heads}.`,
      );
  }
  const configs = modelConfigs(recipe, vocabSize);
  const limitsOfTask = taskLimits(recipe.task);
  const longest = Math.min(model.contextLength, limitsOfTask.maxPromptChars + rl.maxNewTokens * rl.maxTurns + 1);
  const T = trainingLength(longest, model.contextLength);
  const rollouts = rl.promptsPerIteration * rl.groupSize;
  // With compaction a rollout is scored and trained as several rows, one per segment, at most
  // rl.compaction.maxSegments of them.
  const rows = rl.compaction.enabled ? rollouts * rl.compaction.maxSegments : rollouts;
  const minibatch = Math.max(1, Math.floor(rows / rl.minibatches));
  const evalRows = Math.max(ev.heldOutSize, ev.oodSize);
  const batchField = 'rl.promptsPerIteration';

  const buffers: Buffer[] = [];
  let device = 0;
  let host = 0;
  // The models the method declares (the lag simulator's copies are counted below), then its teachers.
  const teachers = options.teachers ?? teacherRuns(recipe).map(() => configs.policy);
  const models: [string, GptConfig, boolean, string][] = [
    ...declaredModels(recipe, vocabSize)
      .filter((m) => !isLagModelName(m.name))
      .map((m): [string, GptConfig, boolean, string] => [
        m.name,
        m.config,
        m.trained,
        m.role === 'critic' || m.role === 'generative-critic' ? 'model.critic.width' : 'model.policy.width',
      ]),
    ...teachers.map((c, k): [string, GptConfig, boolean, string] => [`teacher ${k + 1}`, c, false, 'distill.teachers']),
  ];
  const optimizerFloats = { total: 0 };
  const fileIssues: string[] = [];
  for (const [name, c, trained, field] of models) {
    const layout = parameterLayout(c);
    const P = layout.totalSize;
    buffers.push({ bytes: 4 * P, what: `the ${name}'s ${layout.parameterCount.toLocaleString('en-US')} parameters`, field });
    // params and grads always; AdamW m, v and flags for a trained model.
    device += 4 * P * (trained ? 4 : 2) + (trained ? P / 16 : 0);
    // Host: the initial weights, and at a checkpoint the read-back params (and moments) plus their file bytes.
    host += 4 * P * (trained ? 3 : 1) * 2;
    if (trained) optimizerFloats.total += 2 * P;
    if (4 * P > MAX_CHECKPOINT_FILE_BYTES)
      fileIssues.push(
        `${field} ${c.width} × ${c.layers} layers makes ${name}.safetensors ${GB(4 * P)}, more than the 2 GiB a checkpoint file may hold; use a smaller model.`,
      );
  }
  if (rl.rolloutLag > 0) {
    // The rollout-lag simulator: k kept past policies and a stash of the current one (train/policy-history.ts).
    const P = parameterLayout(configs.policy).totalSize;
    buffers.push({ bytes: 4 * P, what: `each of the ${rl.rolloutLag + 1} policy copies the rollout lag keeps`, field: 'rl.rolloutLag' });
    device += 4 * P * (rl.rolloutLag + 1);
    host += 4 * P * rl.rolloutLag * 2;
  }
  if (4 * optimizerFloats.total > MAX_CHECKPOINT_FILE_BYTES)
    fileIssues.push(
      `model.policy.width ${model.policy.width} × ${model.policy.layers} layers makes optimizer.safetensors (AdamW moments) ${GB(4 * optimizerFloats.total)}, more than the 2 GiB a checkpoint file may hold; use a smaller model.`,
    );
  const phases: [GptConfig, number, string, string][] = [
    [configs.policy, sft.steps > 0 ? sft.batchSize : 1, 'SFT policy', 'sft.batchSize'],
    [configs.policy, rows, 'scoring policy', batchField],
    ...(declaresRole(recipe, 'reference') ? ([[configs.policy, rows, 'scoring reference', batchField]] as [GptConfig, number, string, string][]) : []),
    ...teachers.map((c, k): [GptConfig, number, string, string] => [c, rows, `scoring teacher ${k + 1}`, batchField]),
    [configs.policy, minibatch, 'update policy', 'rl.minibatches'],
    ...(usesCritic
      ? ([
          [configs.critic, rows, 'scoring critic', batchField],
          [configs.critic, minibatch, 'update critic', 'rl.minibatches'],
        ] as [GptConfig, number, string, string][])
      : []),
    // GenAC's critic steps on one row per rollout, all at once (algorithms/genac/critic-training.ts).
    ...(usesGenerativeCritic
      ? ([[generativeCriticConfig(recipe), rows, 'update generative critic', batchField]] as [GptConfig, number, string, string][])
      : []),
  ];
  for (const [c, B, label, field] of phases) {
    const a = activationBuffers(c, B, T, label, field);
    device += a.total;
    buffers.push(...a.buffers);
    if (c.head === 'lm') {
      if (B * T * c.vocabSize > MAX_ELEMENTS)
        refuse(`${field} makes ${label} logits hold ${B * T * c.vocabSize} values, past the kernels' 32-bit indices; lower ${field}.`);
      device += 4 * B * T * c.vocabSize; // dlogits
    }
    // The fewest rows any matmul path's workgroup covers bounds the rows one dispatch can take.
    const rowsPerDispatch = Math.min(...Object.values(MATMUL_BLOCKING).map((b) => matmulTile(b).rows)) * limits.maxComputeWorkgroupsPerDimension;
    if (B * T > rowsPerDispatch)
      refuse(`${field} makes ${label} multiply ${B * T} rows at once, more than the ${rowsPerDispatch} one dispatch covers on this device; lower ${field}.`);
  }
  for (const [B, label, field] of [
    [rollouts, 'rollout', batchField],
    [evalRows, 'evaluation', ev.heldOutSize >= ev.oodSize ? 'eval.heldOutSize' : 'eval.oodSize'],
  ] as const) {
    const d = decodeBuffers(configs.policy, B, `${label} policy`, field);
    device += d.total;
    buffers.push(...d.buffers);
  }
  const largest = buffers.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  for (const [limit, name] of [
    [limits.maxBufferSize, 'maxBufferSize'],
    [limits.maxStorageBufferBindingSize, 'maxStorageBufferBindingSize'],
  ] as const) {
    const over = buffers.find((b) => b.bytes > limit);
    if (over) refuse(`${over.field}: ${over.what} need a ${GB(over.bytes)} buffer, more than this device allows (${name} ${GB(limit)}); lower ${over.field}.`);
  }
  if (fileIssues.length > 0) refuse(fileIssues[0]);
  const held = host + (options.deviceInHostMemory ? device : 0);
  if (held > options.hostMemoryBytes) {
    const field = largest.field;
    refuse(
      `${field}: this recipe needs about ${GB(held)} of memory${options.deviceInHostMemory ? ' (the software GPU keeps its buffers in host memory)' : ''}, more than the ${GB(options.hostMemoryBytes)} budget; lower ${field}.`,
    );
  }
  return { deviceBytes: device, hostBytes: held, largest: { bytes: largest.bytes, what: largest.what } };
}

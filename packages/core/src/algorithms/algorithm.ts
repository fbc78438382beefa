// The seam between a training method and the shared loop (train/rl-iteration.ts). A method says
// which models it needs, which per-token scores it adds to a batch, how a scored batch becomes
// advantages, and which loss terms train which model in each iteration. The loop and the update
// step run whatever a method declares and name no method, as slime's estimators are functions
// (batch) → advantages, returns with additive loss terms after them (docs/algorithms/README.md).
//
// Shape legend:  B rows · T positions

import type { Gpu, KlEstimator } from '@horizon/kernels';
import type { JsonValue, SftExample } from '../envs/environment.ts';
import type { TokenCodec } from '../envs/episode.ts';
import type { Sample } from '../envs/sample.ts';
import type { Task } from '../envs/tasks.ts';
import type { MetricName } from '../metrics/glossary.ts';
import type { Gpt } from '../model/gpt.ts';
import type { AlgorithmName, Recipe } from '../recipe/schema.ts';
import type { BatchTensors } from '../train/batch-tensors.ts';
import type { RlModels } from '../train/rl-context.ts';
import type { TrainingRows } from '../train/rows.ts';
import type { Scorer, Scores } from '../train/scoring.ts';

/**
 * What a model is for, which decides how the trainer builds it. A `teacher` declaration stands for
 * the run's teachers (distill.teachers): frozen policies of other runs that the front end loads and
 * hands to the trainer (train/teachers.ts); they are not part of the run's checkpoints. A
 * `generative-critic` is a language model over the task's vocabulary extended with its own
 * characters, which writes a reasoning and a value digit (GenAC, algorithms/genac/).
 */
export type ModelRole = 'policy' | 'reference' | 'critic' | 'teacher' | 'generative-critic';

export interface ModelDeclaration {
  /** Names the model in checkpoints (`<name>.safetensors`, AdamW moments `<name>.exp_avg.*`). */
  name: string;
  role: ModelRole;
  /** Has an optimizer (and AdamW moments in checkpoints); false: frozen. */
  trained: boolean;
}

/**
 * Per-token arrays a method adds to a scored batch beyond log π_old, its entropy and log π_ref:
 * `values` (the critic's V), `mismatched` (log π_old and log π_ref of row b's prompt followed by row
 * b+1's completion: KTO's reference point, train/mismatched-rows.ts), `teacherLogp` (each row's
 * log π_teacher under the teacher its prompt is routed to), `skillLogp` (log π of each row's tokens
 * with skill text injected into its context: OPID, from the method's own `sampleScores`).
 */
export type ScoreName = 'values' | 'mismatched' | 'teacherLogp' | 'skillLogp';

/**
 * One term of a model's loss. Each shares the batch-wide aggregation scales; the update step records
 * the terms it is given, in this order of kinds, and nothing else. Span-KTO (its kernel exists;
 * span labels come from verifiers) joins this union with its caller.
 */
export type LossTerm =
  /** PPO clipped surrogate against π_old (asymmetric ε, optional dual clip c > 1, 0 = off). */
  | { kind: 'ppo-clip'; epsLow: number; epsHigh: number; dualClip: number }
  /** SAO's DIS band-masked importance sampling against π_roll (docs/algorithms/sao-dis.md). */
  | { kind: 'dis'; epsLow: number; epsHigh: number }
  /** β·KL(π_θ ‖ π_ref) added to the loss, with the same reducer as the surrogate. */
  | { kind: 'kl'; coef: number; estimator: KlEstimator }
  /** Entropy bonus −c_H·H. */
  | { kind: 'entropy'; coef: number }
  /** Clipped value loss of a value-head model against the critic targets (clip 0 = off). */
  | { kind: 'value'; clip: number }
  /**
   * KTO (TRL's loss, docs/algorithms/kto.md): each row's label is the sign of its advantages (> 0
   * desirable), its reference point z0 comes from the `mismatched` score; mean over the minibatch's rows.
   */
  | { kind: 'kto'; beta: number; desirableWeight: number; undesirableWeight: number }
  /**
   * On-policy distillation as a loss: coef·agg(½(ℓ_θ − ℓ_teacher)²) on the sampled tokens, whose
   * gradient on-policy is the reverse KL's (docs/algorithms/distillation.md §1).
   */
  | { kind: 'distill'; coef: number };

/** The optimizer steps one model takes on every minibatch of an iteration. */
export interface ModelUpdate {
  /** A declared, trained model. */
  model: string;
  lr: number;
  terms: readonly LossTerm[];
}

export interface AdvantageInputs {
  gpu: Gpu;
  rows: TrainingRows;
  scores: Scores;
  /**
   * The same batch on the GPU (train/batch-tensors.ts): tokens, mask, log π_roll, log π_old, log π_ref
   * and, when scored, V and log π_teacher are there. A method whose kernels read them records its
   * advantages into `batch.advantages` and `batch.returns` and says so with `onGpu`.
   */
  batch: BatchTensors;
  /** [B, T] task rewards on their target positions, plus −β·KL per action token when KL is in the reward. */
  tokenRewards: Float32Array;
  recipe: Recipe;
  /** The method's models by declared name (GenAC samples its generative critic's text here). */
  models?: ReadonlyMap<string, Gpt>;
  /** Row b's rollout (its prompt text, group and reward): a method may add to its `meta` for the views. */
  samples?: readonly Sample[];
  /** The iteration (0-based), from which a method's own sampling derives its noise. */
  iteration?: number;
  /** The method's state across iterations (UpdateContext.state), read only here. */
  state?: Readonly<Record<string, JsonValue>>;
}

export interface AdvantageResult {
  advantages: Float32Array; // [B, T], 0 off the action mask; whitened if the recipe says so
  /** [B, T] critic targets R̂; zeros when the algorithm has no critic. */
  returns: Float32Array;
  metrics: Partial<Record<MetricName, number>>;
  /** `batch.advantages` and `batch.returns` already hold these arrays; otherwise the loop uploads them once. */
  onGpu?: boolean;
  /** What the method's `trainOwnModels` needs from this batch (GenAC: its critic's rows and targets). */
  ownTraining?: unknown;
}

/** What a method's `trainOwnModels` is given, once per iteration before the loop's minibatch updates. */
export interface OwnTrainingInputs {
  gpu: Gpu;
  recipe: Recipe;
  iteration: number;
  models: RlModels;
  /** AdvantageResult.ownTraining of this iteration's batch. */
  ownTraining: unknown;
  /** The method's state across iterations (UpdateContext.state), which this may update; saved in checkpoints. */
  state: Record<string, JsonValue>;
}

/**
 * What the loop knows when it asks for an iteration's updates: the metrics of this iteration's
 * advantages, and trainer state a method keeps across iterations (JSON, saved in checkpoints so a
 * resumed run decides the same way; e.g. when VC-PPO's value pretraining ended).
 */
export interface UpdateContext {
  metrics: Partial<Record<MetricName, number>>;
  state: Record<string, JsonValue>;
}

/** What a method that scores from the rollouts themselves is given (Algorithm.sampleScores), after the shared pass. */
export interface SampleScoreInputs {
  /** Row b of `rows` is samples[b]. */
  samples: readonly Sample[];
  rows: TrainingRows;
  /** The shared pass's scores (log π_old, log π_ref, …). */
  scores: Scores;
  scorer: Scorer;
  models: ReadonlyMap<string, Gpt>;
  codec: TokenCodec & { padId: number };
  recipe: Recipe;
}

export interface Algorithm {
  readonly name: AlgorithmName;
  /** Every model the method needs during RL, the policy first. */
  readonly models: readonly ModelDeclaration[];
  readonly scores: readonly ScoreName[];
  /** Its advantages compare the rollouts of one prompt (GRPO, RLOO): a group with fewer than 2 valid rollouts is dropped. */
  readonly grouped?: boolean;
  advantages(inputs: AdvantageInputs): Promise<AdvantageResult>;
  /** The models trained in iteration `iteration` (0-based) and their terms, in the order they step on each minibatch. */
  updates(recipe: Recipe, iteration: number, context?: UpdateContext): readonly ModelUpdate[];
  /**
   * A file of labelled completions the method trains on instead of the policy's rollouts, if the
   * recipe names one (train/labelled-examples.ts reads its rows; KTO's kto.file).
   */
  labelledFile?(recipe: Recipe): string | undefined;
  /**
   * Scores the method computes from the rollouts themselves (their text and step info), merged into
   * the batch's scores after the shared pass; OPID's skill-injected log-probs (algorithms/opid/).
   */
  sampleScores?(inputs: SampleScoreInputs): Promise<Partial<Scores>>;
  /** The SFT warm start's example `index` when the method trains on other demonstrations than the task's (OPID: half carry a skill). */
  sftExample?(task: Task, runSeed: number, index: number): SftExample;
  /** Parameters of a declared, trained model that its optimizer must leave alone (names from `parameterNames`); none if absent. */
  frozenParameters?(recipe: Recipe, model: string, parameterNames: readonly string[]): readonly string[];
  /**
   * Steps of declared models that train on rows of their own rather than the batch's (GenAC's
   * generative critic, on the text it wrote and on its SFT data): the loop's minibatches carry the
   * policy's rows, so such a model steps here, once per iteration, before the loop's updates. Returns metrics.
   */
  trainOwnModels?(inputs: OwnTrainingInputs): Promise<Partial<Record<MetricName, number>>>;
}

/** The policy being trained and the frozen SFT copy the KL is measured against: every method's first two models. */
export const POLICY: ModelDeclaration = { name: 'policy', role: 'policy', trained: true };
export const REFERENCE: ModelDeclaration = { name: 'reference', role: 'reference', trained: false };

/** Mean and standard deviation of `values` where `mask` is 1. */
export function maskedStats(values: ArrayLike<number>, mask: ArrayLike<number>): { mean: number; std: number; count: number } {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    if (!mask[i]) continue;
    n++;
    sum += values[i];
  }
  const mean = n > 0 ? sum / n : 0;
  let sq = 0;
  for (let i = 0; i < values.length; i++) if (mask[i]) sq += (values[i] - mean) ** 2;
  return { mean, std: n > 0 ? Math.sqrt(sq / n) : 0, count: n };
}

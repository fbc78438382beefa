// The model `horizon serve` answers with: a checkpoint's policy on the GPU behind the continuous-
// batching scheduler (core's BatchScheduler over the Generator), its tokenizer and its context length.
// Only the policy's weights are loaded — no optimizer, critic or reference model, which a trainer
// (`horizon eval`) would allocate — since serving only samples.

import {
  BatchScheduler,
  type BlackBoxTraining,
  CharTokenizer,
  type ChunkSampler,
  checkVocabulary,
  createTask,
  Generator,
  Gpt,
  modelConfigs,
  TopLogprobScorer,
  type TopLogprobSource,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { openCheckpoint } from '../run/open-checkpoint.ts';

export interface ServedModel {
  id: string;
  /** Unix seconds: when the checkpoint was loaded. */
  created: number;
  tokenizer: CharTokenizer;
  contextLength: number;
  scheduler: BatchScheduler;
  /** What the startup line says about it. */
  describe: string;
  /** Scores completions again for top_logprobs; without it, top_logprobs is refused. */
  topLogprobs: TopLogprobSource | undefined;
  /** Training mode (`--train`): records sessions and trains on their rewards (training-model.ts). */
  training?: BlackBoxTraining;
}

export interface BatchingSettings {
  maxRows: number;
  chunkTokens: number;
}

/** Philox seed of every serving call; a request's seed goes into its rows' keys instead (choice.ts). */
const SERVE_SEED = 0x5e7e;
/** A Philox stream apart from the trainer's (core's SEED_STREAM uses 1–4). */
const SERVE_STREAM = 5;

export function servedModel(
  id: string,
  tokenizer: CharTokenizer,
  contextLength: number,
  sampler: ChunkSampler,
  batching: BatchingSettings,
  describe = id,
  topLogprobs?: TopLogprobSource,
): ServedModel {
  const scheduler = new BatchScheduler(sampler, { contextLength, ...batching, seed: SERVE_SEED, stream: SERVE_STREAM });
  return { id, created: Math.floor(Date.now() / 1000), tokenizer, contextLength, scheduler, describe, topLogprobs };
}

/** Loads a checkpoint's policy onto `gpu`; `dir` is a run directory or one checkpoint directory. */
export async function loadServedModel(gpu: Gpu, dir: string, batching: BatchingSettings, id?: string): Promise<{ model: ServedModel; policy: Gpt }> {
  const { checkpoint, where } = await openCheckpoint(dir);
  const recipe = checkpoint.recipe;
  const tokenizer = new CharTokenizer(createTask(recipe.task, recipe.eval).vocabulary);
  checkVocabulary(checkpoint.vocabulary, tokenizer.pieceList(), 'this checkpoint');
  const config = modelConfigs(recipe, tokenizer.vocabSize).policy;
  const policy = Gpt.fromWeights(gpu, config, checkpoint.models.policy.params, 'policy');
  const generator = new Generator(policy);
  const name = id ?? `${recipe.name}-step-${checkpoint.step}`;
  const describe = `${name}: ${where}, ${tokenizer.vocabSize} tokens, context ${config.contextLength}`;
  return { model: servedModel(name, tokenizer, config.contextLength, generator, batching, describe, new TopLogprobScorer(policy)), policy };
}

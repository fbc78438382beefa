// The model an export reads: one named model of a committed checkpoint (run directory or
// checkpoints/step-N, as `horizon eval` takes them), its weights by nanoGPT name, and the vocabulary
// the checkpoint stores. Every export format starts here, so every one refuses the same bad input
// (not a checkpoint, an unknown model name, a value-head model) before anything is written.

import type { Checkpoint, GptConfig } from '@horizon/core';
import { parameterLayout } from '@horizon/core';
import { UsageError } from '../cli/command.ts';
import { openCheckpoint } from '../run/open-checkpoint.ts';

export interface ExportSource {
  /** The checkpoint directory the weights came from (for provenance files). */
  where: string;
  step: number;
  recipeName: string;
  modelName: string;
  config: GptConfig;
  /** Each parameter by its nanoGPT / PyTorch name, in the layout's order, shaped as nn.Linear stores it ([out, in]). */
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
  /** Token texts in id order, as the checkpoint stores them (CharTokenizer.pieceList). */
  vocabulary: string[];
}

/** The named model of an already-loaded checkpoint (tests build checkpoints in memory). */
export function sourceFromCheckpoint(checkpoint: Checkpoint, where: string, modelName: string): ExportSource {
  const model = checkpoint.models[modelName];
  if (!Object.hasOwn(checkpoint.models, modelName) || !model)
    throw new UsageError(`--model ${modelName} is not in ${where}; it holds ${Object.keys(checkpoint.models).join(', ')}.`);
  // A critic's value head has no counterpart in nanoGPT's GPT or transformers' GPT2LMHeadModel.
  if (model.config.head !== 'lm')
    throw new UsageError(`--model ${modelName} has a value head, and these formats hold language models; export the policy (or the reference) instead.`);
  const layout = parameterLayout(model.config);
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const e of layout.entries) tensors.set(e.name, { shape: [...e.shape], data: model.params.subarray(e.offset, e.offset + e.size) });
  return { where, step: checkpoint.step, recipeName: checkpoint.recipe.name, modelName, config: model.config, tensors, vocabulary: [...checkpoint.vocabulary] };
}

/** Opens `dir` (a run directory or one checkpoint directory) and takes its model `modelName`. */
export async function openExportSource(dir: string, modelName: string): Promise<ExportSource> {
  // A path that is not a committed checkpoint is an InputError: main.ts prints it and exits 2.
  const { checkpoint, where } = await openCheckpoint(dir);
  return sourceFromCheckpoint(checkpoint, where, modelName);
}

// `horizon serve --train`: the served model is a Trainer's policy, restored from an RL checkpoint, and
// the outside agent's rewarded sessions train it in place (core's BlackBoxTraining, docs/serve.md
// "Black-box training"). Like `horizon train`, the run writes a run directory: metrics.jsonl, every
// trained sample in samples.jsonl (as `log.allSamples` would; the batch is the agent's, so all of
// it is the record) and checkpoints at `checkpoint.interval` and on stopping, so `horizon eval`,
// `horizon serve` and `horizon export` read it as any other run. A served sampler call and an update
// take turns on the GPU (core's PolicyGate). top_logprobs is not offered: its scoring pass would read
// the weights outside that turn-taking.

import { BlackBoxTraining, Generator, InputError, PolicyGate, resolveRecipe, sampleRecord, saveCheckpoint, Trainer, type TrainerHooks } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';
import { FileMetricsLogger, SamplesFile } from '../run/metrics-file.ts';
import { openCheckpoint } from '../run/open-checkpoint.ts';
import { checkRecipeFits } from '../run/recipe-source.ts';
import { createRunDir, type RunPaths } from '../run/run-dir.ts';
import { type BatchingSettings, type ServedModel, servedModel } from './served-model.ts';

export interface TrainingServe {
  model: ServedModel;
  paths: RunPaths;
  /** Writes a checkpoint of the current policy (unless the last one is of this iteration) and closes the logs. */
  stop(): Promise<void>;
}

/** Loads `dir`'s checkpoint into a trainer with its recipe (and `sets` on top), and serves it in training mode. */
export async function loadTrainingModel(
  gpu: Gpu,
  dir: string,
  options: { sets: readonly string[]; out: string | undefined; batching: BatchingSettings; id: string | undefined },
): Promise<TrainingServe> {
  const { checkpoint, where } = await openCheckpoint(dir);
  // Every trained sample is logged unless the command line says otherwise: the agent's batch is the whole record.
  const sets = ['log.allSamples=true', ...options.sets];
  const recipe = resolveRecipe({ file: { name: where, text: JSON.stringify(checkpoint.recipe), savedByRun: true }, sets }).recipe;
  checkRecipeFits(recipe, gpu);
  const trainer = new Trainer(gpu, recipe);
  trainer.restore(checkpoint);
  if (trainer.phase !== 'rl')
    throw new InputError('checkpoint', `${where} was taken during SFT; black-box training starts from an RL checkpoint (train with rl.iterations ≥ 1 first).`);
  const paths = await createRunDir({ recipeName: `${recipe.name}-blackbox`, ...(options.out !== undefined ? { out: options.out } : {}) });
  const metrics = await FileMetricsLogger.create(paths.metrics, recipe);
  const samples = await SamplesFile.create(paths.samples);
  const store = new DirectoryCheckpointStore(paths.checkpoints);
  let savedAt = -1;
  const save = async () => {
    await saveCheckpoint(store, await trainer.checkpoint(), { keepLast: recipe.checkpoint.keepLast });
    savedAt = trainer.iteration;
  };
  const hooks: TrainerHooks = {
    onMetrics: (phase, step, row, at) => metrics.log({ phase, step, global_step: at.globalStep, time_s: at.seconds, metrics: row }),
    onSamples: (phase, step, rows) =>
      samples.append(
        rows.map(({ sample, channels }) =>
          sampleRecord(sample, { phase, step }, { pieces: sample.tokens.map((id) => trainer.tokenizer.decode([id])), ...(channels ? { channels } : {}) }),
        ),
      ),
    onCheckpoint: async () => save(),
  };
  const gate = new PolicyGate(new Generator(trainer.policy));
  const training = new BlackBoxTraining(trainer, gate, hooks);
  const name = options.id ?? `${recipe.name}-step-${checkpoint.step}`;
  const describe = `${name}: training from ${where} (${recipe.rl.algorithm}, ${recipe.rl.promptsPerIteration} groups × ${recipe.rl.groupSize} sessions an update), run directory ${paths.dir}`;
  const model = { ...servedModel(name, trainer.tokenizer, recipe.model.contextLength, gate, options.batching, describe), training };
  return {
    model,
    paths,
    async stop() {
      if (savedAt !== trainer.iteration) await save();
      await metrics.close();
      await samples.close();
      trainer.dispose();
    },
  };
}

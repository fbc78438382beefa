// `horizon train`: resolve a recipe, print it, and run it — SFT warm start, RL, evaluations and
// checkpoints — writing metrics.jsonl, samples.jsonl and checkpoints/ into a run directory.
// `--resume DIR` continues a run from its last committed checkpoint, bit-for-bit on the same device.

import {
  type Checkpoint,
  checkResumeRecipe,
  formatRecipeTable,
  isInputError,
  loadCheckpoint,
  type MetricName,
  type Phase,
  PRESET_NAMES,
  type Recipe,
  resolveRecipe,
  sampleRecord,
  saveCheckpoint,
  Trainer,
} from '@horizon/core';
import { deviceLine } from '@horizon/kernels';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';
import { FileMetricsLogger, SamplesFile } from '../run/metrics-file.ts';
import { TrainingProgress } from '../run/progress.ts';
import { checkRecipeFits, loadRecipe } from '../run/recipe-source.ts';
import { createRunDir, openRunDir, type RunPaths } from '../run/run-dir.ts';

export const train: Command = {
  name: 'train',
  summary: 'train a policy: SFT warm start, then RL (PPO, GRPO or RLOO), with evaluations and checkpoints',
  flags: {
    recipe: { type: 'string', description: `a preset (${PRESET_NAMES.join(', ')}) or a .json recipe file; default add-ppo`, valueName: 'name|file' },
    set: { type: 'string', multiple: true, description: 'override one recipe field, e.g. --set rl.iterations=50 (repeatable)', valueName: 'key=value' },
    out: { type: 'string', description: 'run directory (default runs/<recipe>-<time>); must be new or empty', valueName: 'dir' },
    resume: { type: 'string', description: 'continue the run in this directory from its last checkpoint', valueName: 'dir' },
    quiet: { type: 'boolean', description: 'no progress bar (metrics still go to metrics.jsonl)' },
  },
  async run({ flags, out, err }) {
    const sets = (flags.set as string[] | undefined) ?? [];
    let recipe: Recipe;
    let sources: Record<string, string> | undefined;
    let paths: RunPaths;
    let resumeFrom: Checkpoint | undefined;
    let logger: FileMetricsLogger;
    let samples: SamplesFile;
    try {
      if (flags.resume !== undefined) {
        paths = await openRunDir(flags.resume as string);
        const store = new DirectoryCheckpointStore(paths.checkpoints);
        resumeFrom = await loadCheckpoint(store);
        // --set applies on top of the saved recipe (e.g. more rl.iterations); --recipe names a recipe
        // to compare against. Either way the result may differ from the saved one only in fields that
        // do not change what any iteration computes.
        recipe =
          flags.recipe !== undefined
            ? (await loadRecipe({ recipe: flags.recipe as string, sets })).recipe
            : resolveRecipe({ file: { name: 'the checkpoint', text: JSON.stringify(resumeFrom.recipe) }, sets }).recipe;
        checkResumeRecipe(resumeFrom.recipe, recipe, store.describe(resumeFrom.step));
        logger = await FileMetricsLogger.resume(paths.metrics, recipe, Number(resumeFrom.extra.metricsRecords ?? 0));
        samples = await SamplesFile.resume(paths.samples, Number(resumeFrom.extra.samplesRecords ?? 0));
      } else {
        ({ recipe, sources } = await loadRecipe({ recipe: flags.recipe as string | undefined, sets }));
        paths = await createRunDir({ recipeName: recipe.name, ...(flags.out !== undefined ? { out: flags.out as string } : {}) });
        logger = await FileMetricsLogger.create(paths.metrics, recipe);
        samples = await SamplesFile.create(paths.samples);
      }
    } catch (error) {
      if (isInputError(error)) throw new UsageError(error.message);
      throw error;
    }

    out(formatRecipeTable(recipe, sources ? { sources } : {}));
    const gpu = await acquireGpu();
    checkRecipeFits(recipe, gpu); // a recipe the kernels or this device cannot run: one sentence, exit 2 (issue 11)
    out(`device: ${deviceLine(gpu.report)}`);
    out(`run directory: ${paths.dir}${resumeFrom ? ` (resuming after iteration ${resumeFrom.step})` : ''}`);
    const trainer = new Trainer(gpu, recipe);
    if (resumeFrom) trainer.restore(resumeFrom);
    const store = new DirectoryCheckpointStore(paths.checkpoints);
    const bars: Partial<Record<'sft' | 'rl', TrainingProgress>> = {};
    const evals: { step: number; heldOut: number; ood: number }[] = [];
    let stopRequested = false;
    const onSigint = () => {
      stopRequested = true;
      err('\nstopping after this step and saving a checkpoint (Ctrl-C again to abort)…');
      process.off('SIGINT', onSigint);
    };
    process.on('SIGINT', onSigint);

    try {
      await trainer.run({
        onMetrics: async (phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>) => {
          await logger.log({ phase, step, time_s: trainer.secondsElapsed, metrics });
          if (phase === 'eval') {
            const heldOut = metrics['eval/held_out_success'] ?? Number.NaN;
            const ood = metrics['eval/ood_success'] ?? Number.NaN;
            evals.push({ step, heldOut, ood });
            for (const bar of Object.values(bars)) bar?.stop();
            out(`eval after ${step === 0 ? 'SFT' : `iteration ${step}`}: held-out success ${percent(heldOut)}, OOD success ${percent(ood)}`);
          }
        },
        onSamples: async (phase, step, rows) => {
          const records = rows.map(({ sample, channels }) => {
            const pieces = sample.tokens.map((id) => trainer.tokenizer.decode([id]));
            return sampleRecord(sample, { phase, step }, { pieces, ...(channels ? { channels } : {}) });
          });
          await samples.append(records);
        },
        onProgress: (phase, done, total, fields) => {
          if (flags.quiet) return;
          if (!bars[phase] || done === 1) bars[phase] = new TrainingProgress({ total, label: phase === 'sft' ? 'sft' : recipe.rl.algorithm });
          bars[phase]?.update(done, fields);
          if (done === total) bars[phase]?.stop();
        },
        onCheckpoint: async (_step, save) => {
          const ckpt = await save();
          ckpt.extra = { ...ckpt.extra, metricsRecords: logger.recordCount, samplesRecords: samples.recordCount };
          await saveCheckpoint(store, ckpt, { keepLast: recipe.checkpoint.keepLast });
        },
        shouldStop: () => stopRequested,
      });
      if (stopRequested) {
        const ckpt = await trainer.checkpoint();
        ckpt.extra = { ...ckpt.extra, metricsRecords: logger.recordCount, samplesRecords: samples.recordCount };
        if (trainer.reference && !(await store.list()).includes(ckpt.step)) await saveCheckpoint(store, ckpt, { keepLast: recipe.checkpoint.keepLast });
        out(`stopped after iteration ${trainer.iteration}; continue with: horizon train --resume ${paths.dir}`);
        return EXIT.ok;
      }
    } finally {
      for (const bar of Object.values(bars)) bar?.stop();
      process.off('SIGINT', onSigint);
      await logger.close();
      await samples.close();
      gpu.destroyDevice();
    }
    const first = evals[0];
    const last = evals.at(-1);
    if (first && last && last !== first) {
      out(
        `held-out success ${percent(first.heldOut)} after SFT → ${percent(last.heldOut)} after ${last.step} iterations (${signedPoints(last.heldOut - first.heldOut)}); ` +
          `OOD ${percent(first.ood)} → ${percent(last.ood)}; ${trainer.secondsElapsed.toFixed(0)} s`,
      );
    }
    out(`metrics: ${paths.metrics}`);
    return EXIT.ok;
  },
};

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
const signedPoints = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} points`;

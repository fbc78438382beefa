// `horizon train`: resolve a recipe, print it, and run it — SFT warm start, RL, evaluations and
// checkpoints — writing metrics.jsonl, samples.jsonl and checkpoints/ into a run directory.
// `--resume DIR` continues a run from its last committed checkpoint, bit-for-bit on the same device.
//
// The run's life (docs/reliability.md §6):
//   1. checks, touching nothing: arguments, recipe, run directory, and for --resume the lock (run-lock.ts),
//      the checkpoint, the recipe against it, and both logs against the checkpoint's positions;
//   2. the GPU, and what the recipe needs of it;
//   3. writes: the run directory and the lock (new run), or cutting the logs back to the checkpoint
//      and clearing interrupted checkpoint writes (resume);
//   4. training, with checkpoints at the recipe's interval. Ctrl-C or SIGTERM stops after the step in
//      flight and writes a checkpoint (in SFT too), exit 130 / 143; a second one stops at once (signals.ts).
//      A non-finite loss, gradient norm or reward stops with exit 1 and keeps the last good checkpoint.
// The lock is released on every way out; file-system failures are one sentence and exit 2 (fs-errors.ts).

import { rm, rmdir } from 'node:fs/promises';
import {
  type Checkpoint,
  checkpointPhase,
  checkResumeRecipe,
  DEFAULT_PRESET,
  declaresRole,
  encodeCheckpoint,
  formatRecipeTable,
  InputError,
  isDivergedError,
  isInputError,
  loadCheckpoint,
  loadTeachers,
  type MetricName,
  type MetricsAt,
  methodFieldsSummary,
  type Phase,
  PRESET_NAMES,
  type Recipe,
  resolveRecipe,
  sampleRecord,
  saveCheckpoint,
  type TeacherWeights,
  Trainer,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { deviceLine } from '@horizon/kernels';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';
import { fsInputError, isFsError, shortPath } from '../run/fs-errors.ts';
import type { ResumePlan } from '../run/jsonl-file.ts';
import { loadLabelledExamples } from '../run/labelled-file.ts';
import { FileMetricsLogger, SamplesFile, savedRecipe } from '../run/metrics-file.ts';
import { TrainingProgress } from '../run/progress.ts';
import { checkRecipeFits, loadRecipe } from '../run/recipe-source.ts';
import { makeRunDir, openRunDir, planRunDir, type RunPaths, removeStrayTemps } from '../run/run-dir.ts';
import { RunLock } from '../run/run-lock.ts';
import { SIGNAL_EXIT, StopSignals, underScriptRunner } from '../run/signals.ts';
import { RunDirTeacherSource } from '../run/teacher-source.ts';

/** A committed checkpoint this process knows of: where the run can continue from. */
interface Kept {
  phase: 'sft' | 'rl';
  /** The checkpoint's step (0 in SFT). */
  step: number;
  globalStep: number;
  sftSteps: number;
}

/** What a resume found: the checkpoint (none if the run stopped before its first) and the logs' plans. */
interface ResumeState {
  checkpoint: Checkpoint | undefined;
  metrics: ResumePlan;
  samples: ResumePlan;
}

export const train: Command = {
  name: 'train',
  summary: 'train a policy: SFT warm start, then RL (PPO, GRPO, Dr.GRPO, RLOO, KTO, SAO, distillation, GenAC or OPID), with evaluations and checkpoints',
  flags: {
    recipe: { type: 'string', description: `a preset (${PRESET_NAMES.join(', ')}) or a .json recipe file; default ${DEFAULT_PRESET}`, valueName: 'name|file' },
    set: {
      type: 'string',
      multiple: true,
      description: `override one recipe field, e.g. --set rl.iterations=50 (repeatable; \`horizon recipe --fields\` lists them). Read only by some methods: ${methodFieldsSummary()}`,
      valueName: 'key=value',
    },
    out: { type: 'string', description: 'run directory (default runs/<recipe>-<time>); must be new or empty', valueName: 'dir' },
    resume: {
      type: 'string',
      description: 'continue the run in this directory from its last checkpoint (Ctrl-C or SIGTERM writes one first, then exits 130 or 143)',
      valueName: 'dir',
    },
    quiet: { type: 'boolean', description: 'no progress bar (metrics still go to metrics.jsonl)' },
  },
  async run({ flags, positionals, out, err }) {
    if (positionals.length > 0) {
      const p = shortPath(positionals[0]);
      throw new UsageError(`train takes no positional arguments (got "${p}"); to train that recipe, use --recipe ${p}.`);
    }
    if (flags.resume !== undefined && flags.out !== undefined)
      throw new UsageError('--resume continues a run in its own directory, so --out cannot move it; copy the directory and --resume the copy instead.');
    const sets = (flags.set as string[] | undefined) ?? [];
    const say = (line: string) => err(`horizon train: ${line}`);

    // 1. Everything that can refuse, before any file is touched.
    let recipe: Recipe;
    let sources: Record<string, string> | undefined;
    let paths: RunPaths;
    let lock: RunLock | undefined;
    let resume: ResumeState | undefined;
    let labelled: Awaited<ReturnType<typeof loadLabelledExamples>>;
    let teachers: TeacherWeights[] | undefined;
    try {
      if (flags.resume !== undefined) {
        paths = await openRunDir(flags.resume as string);
        lock = await RunLock.acquire(paths.dir, say);
        ({ recipe, resume } = await checkResume(paths, flags.recipe as string | undefined, sets, say));
      } else {
        ({ recipe, sources } = await loadRecipe({ recipe: flags.recipe as string | undefined, sets }));
        paths = await planRunDir({ recipeName: recipe.name, ...(flags.out !== undefined ? { out: flags.out as string } : {}) });
      }
      labelled = await loadLabelledExamples(recipe);
      // Distillation's teachers are read (and refused) here, before anything is written.
      if (declaresRole(recipe, 'teacher')) {
        teachers = await loadTeachers(recipe, new RunDirTeacherSource());
        if (resume?.checkpoint) checkSameTeachers(resume.checkpoint, teachers);
      }
    } catch (error) {
      lock?.release();
      throw asInputError(
        error,
        flags.resume !== undefined ? 'open the run directory' : 'create the run directory',
        (flags.resume ?? flags.out) as string | undefined,
      );
    }

    let gpu: Gpu | undefined;
    let logger: FileMetricsLogger | undefined;
    let samples: SamplesFile | undefined;
    let signals: StopSignals | undefined;
    const bars: Partial<Record<'sft' | 'rl', TrainingProgress>> = {};
    const store = new DirectoryCheckpointStore(paths.checkpoints);
    let kept: Kept | undefined = resume?.checkpoint ? keptOf(resume.checkpoint) : undefined;
    const keptLine = () =>
      kept
        ? `the newest checkpoint is ${store.describe(kept.step)} (${kept.phase === 'sft' ? `SFT step ${kept.sftSteps}` : `RL iteration ${kept.step}`})`
        : 'no checkpoint has been written yet (resuming restarts the run)';
    const continueLine = () => `continue with: horizon train --resume ${paths.dir}`;
    const installSignals = () => {
      signals ??= new StopSignals(
        (signal) =>
          say(
            `${signal}: stopping after this step and saving a checkpoint (${signal === 'SIGINT' ? 'Ctrl-C' : 'signal'} again to stop at once)` +
              (underScriptRunner() ? `; pnpm's "ELIFECYCLE … exit code ${SIGNAL_EXIT[signal]}" that follows is this stop, not a failure` : ''),
          ),
        (signal) => {
          for (const bar of Object.values(bars)) bar?.stop();
          say(`${signal} again: stopped at once; ${keptLine()}; rows logged after it are dropped on resume; ${continueLine()}`);
          lock?.release();
          // Exiting with GPU work in flight crashed Dawn's native teardown (SIGSEGV, no exit code;
          // seen 1 run in 4 when the second signal came mid-step): the device goes first.
          gpu?.destroyDevice();
          process.exit(SIGNAL_EXIT[signal]);
        },
      );
    };
    if (lock) installSignals();

    try {
      out(formatRecipeTable(recipe, sources ? { sources } : {}));
      gpu = await acquireGpu();
      checkRecipeFits(recipe, gpu, teachers); // a recipe the kernels or this device cannot run: one sentence, exit 2, before any write
      out(`device: ${deviceLine(gpu.report)}`);

      // 3. Writes.
      try {
        if (resume) {
          for (const name of await store.collectGarbage()) say(`removed ${store.location}/${name}, an interrupted checkpoint write or removal`);
          for (const name of await removeStrayTemps(paths)) say(`removed ${paths.dir}/${name}, a temp file an interrupted log rewrite left`);
          logger = await FileMetricsLogger.resume(resume.metrics);
          samples = await SamplesFile.resume(resume.samples);
        } else {
          await makeRunDir(paths);
          lock = await RunLock.acquire(paths.dir, say);
          installSignals();
          logger = await FileMetricsLogger.create(paths.metrics, recipe);
          samples = await SamplesFile.create(paths.samples);
        }
      } catch (error) {
        if (!resume && isFsError(error)) await removeCreated(paths, lock);
        throw asInputError(error, resume ? 'resume the run in' : 'create the run directory', paths.dir);
      }
      const where = !resume
        ? ''
        : !resume.checkpoint
          ? ' (no checkpoint yet: restarting from the beginning)'
          : kept?.phase === 'sft'
            ? ` (resuming in SFT after step ${kept.sftSteps})`
            : ` (resuming after iteration ${resume.checkpoint.step})`;
      out(`run directory: ${paths.dir}${where}`);

      // 4. Training.
      const trainer = new Trainer(gpu, recipe, { ...(labelled ? { labelled } : {}), ...(teachers ? { teachers } : {}) });
      if (resume?.checkpoint) trainer.restore(resume.checkpoint);
      const log = logger;
      const sampleLog = samples;
      const save = async (ckpt: Checkpoint) => {
        ckpt.extra = {
          ...ckpt.extra,
          metricsRecords: log.recordCount,
          metricsBytes: log.byteCount,
          samplesRecords: sampleLog.recordCount,
          samplesBytes: sampleLog.byteCount,
        };
        if (ckpt.step === 0 && (await store.list()).includes(0)) await store.replace(0, await encodeCheckpoint(ckpt));
        else await saveCheckpoint(store, ckpt, { keepLast: recipe.checkpoint.keepLast });
        kept = keptOf(ckpt);
      };
      const evals: { step: number; heldOut: number; ood: number }[] = [];
      try {
        await trainer.run({
          onMetrics: async (phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>, at: MetricsAt) => {
            await log.log({ phase, step, global_step: at.globalStep, time_s: at.seconds, metrics });
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
            await sampleLog.append(records);
          },
          onProgress: (phase, done, total, fields) => {
            if (flags.quiet) return;
            if (!bars[phase] || done === 1) bars[phase] = new TrainingProgress({ total, label: phase === 'sft' ? 'sft' : recipe.rl.algorithm });
            bars[phase]?.update(done, fields);
            if (done === total) bars[phase]?.stop();
          },
          onCheckpoint: async (_step, build) => save(await build()),
          shouldStop: () => signals?.requested ?? false,
        });
        const signal = signals?.signal;
        if (signal && trainer.iteration < recipe.rl.iterations) {
          for (const bar of Object.values(bars)) bar?.stop();
          const done = trainer.phase === 'sft' ? `SFT step ${trainer.sftStep}` : `RL iteration ${trainer.iteration}`;
          if (kept?.globalStep !== trainer.globalStep || kept.phase !== trainer.phase) await save(await trainer.checkpoint());
          say(`stopped by ${signal} after ${done}; ${keptLine()}; ${continueLine()}`);
          return SIGNAL_EXIT[signal];
        }
      } catch (error) {
        if (!isDivergedError(error)) throw error;
        for (const bar of Object.values(bars)) bar?.stop();
        say(
          `${error.message}; no checkpoint holds the diverged weights: ${keptLine().replace(' (resuming restarts the run)', '')}. ` +
            'Resuming would diverge the same way: start a new run with a smaller learning rate.',
        );
        return EXIT.failed;
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
    } catch (error) {
      if (isFsError(error)) throw fsInputError(error, 'write to run directory', paths.dir, `fix that, then ${keptLine()}; ${continueLine()}.`);
      throw error;
    } finally {
      for (const bar of Object.values(bars)) bar?.stop();
      // After a stop by signal the handlers stay until the process exits: a second Ctrl-C during the
      // shutdown (closing logs, releasing the GPU) still says what was kept and exits 130, where the
      // default action would kill the process with no exit code (seen in the clean room).
      if (!signals?.requested) signals?.dispose();
      await logger?.close().catch(() => undefined);
      await samples?.close().catch(() => undefined);
      gpu?.destroyDevice();
      lock?.release();
    }
  },
};

/** A new run that could not start (a full disk) leaves nothing: removes what step 3 created, if it is still empty of results. */
async function removeCreated(paths: RunPaths, lock: RunLock | undefined): Promise<void> {
  lock?.release();
  for (const file of [paths.metrics, paths.samples]) await rm(file, { force: true }).catch(() => undefined);
  for (const dir of [paths.checkpoints, paths.dir]) await rmdir(dir).catch(() => undefined);
}

/**
 * A resumed distillation must see the teachers it started with, or it would not continue bit for
 * bit: each teacher run's newest checkpoint must be the one the checkpoint recorded.
 */
function checkSameTeachers(ckpt: Checkpoint, teachers: readonly TeacherWeights[]): void {
  const recorded = ckpt.extra.teachers;
  if (!Array.isArray(recorded)) return;
  for (const [k, teacher] of teachers.entries()) {
    const was = recorded[k] as { run?: unknown; step?: unknown } | undefined;
    if (was && was.run === teacher.run && was.step !== teacher.step)
      throw new InputError(
        'run',
        `teacher ${teacher.run} is now at iteration ${teacher.step}, but this run was distilled from its iteration ${String(was.step)}: resuming would not continue the same run; start a new run to distill from the newer teacher.`,
      );
  }
}

function keptOf(ckpt: Checkpoint): Kept {
  const sftSteps = Number(ckpt.extra.sftSteps ?? ckpt.recipe.sft.steps);
  const phase = checkpointPhase(ckpt);
  return { phase, step: ckpt.step, sftSteps, globalStep: sftSteps + ckpt.step };
}

/**
 * The checks of a resume, all reads: the newest checkpoint (none: the run restarts from its
 * beginning), the recipe (the saved one with --set on top, or --recipe compared against it), that
 * there is something left to do, and that both logs still hold what the checkpoint saw.
 */
async function checkResume(
  paths: RunPaths,
  recipeFlag: string | undefined,
  sets: string[],
  say: (line: string) => void,
): Promise<{ recipe: Recipe; resume: ResumeState }> {
  const store = new DirectoryCheckpointStore(paths.checkpoints);
  for (const step of await store.finishInterruptedReplace()) say(`completed an interrupted rewrite of ${store.describe(step)}`);
  const checkpoint = (await store.list()).length > 0 ? await loadCheckpoint(store) : undefined;
  const saved = checkpoint?.recipe ?? (await savedRecipe(paths.metrics));
  const where = checkpoint ? store.describe(checkpoint.step) : paths.metrics;
  // --set applies on top of the saved recipe (e.g. more rl.iterations); --recipe names a recipe to
  // compare against. Either way the result may differ from the saved one only in fields that do not
  // change what any iteration computes.
  const recipe =
    recipeFlag !== undefined
      ? (await loadRecipe({ recipe: recipeFlag, sets })).recipe
      : resolveRecipe({ file: { name: where, text: JSON.stringify(saved), savedByRun: true }, sets }).recipe;
  checkResumeRecipe(saved, recipe, where);
  if (checkpoint && checkpointPhase(checkpoint) === 'rl' && checkpoint.step >= recipe.rl.iterations) {
    const done = checkpoint.step;
    throw new InputError(
      'run',
      done === recipe.rl.iterations
        ? `${paths.dir} has already completed all ${done} RL iterations: nothing left to do; to train further, resume with --set rl.iterations=N for some N > ${done}.`
        : `${paths.dir} has already completed ${done} RL iterations, more than rl.iterations = ${recipe.rl.iterations}: nothing left to do; a run cannot be shortened (its checkpoint is at iteration ${done}).`,
    );
  }
  const extra = checkpoint?.extra ?? {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const at = checkpoint ? keptOf(checkpoint) : undefined;
  const metrics = await FileMetricsLogger.inspect(paths.metrics, recipe, {
    records: num(extra.metricsRecords) ?? 0,
    ...(num(extra.metricsBytes) !== undefined ? { bytes: num(extra.metricsBytes) } : {}),
    globalStep: at ? at.globalStep : 0,
  });
  const samplesBytes = num(extra.samplesBytes) ?? (checkpoint ? undefined : 0);
  const samples = await SamplesFile.inspect(paths.samples, {
    lines: num(extra.samplesRecords) ?? 0,
    ...(samplesBytes !== undefined ? { bytes: samplesBytes } : {}),
  });
  return { recipe, resume: { checkpoint, metrics, samples } };
}

/** File-system errors as one sentence (exit 2); InputErrors and anything else pass through. */
function asInputError(error: unknown, doing: string, path: string | undefined): unknown {
  if (isInputError(error)) return error;
  if (isFsError(error)) return fsInputError(error, doing, path, 'check the path and its permissions, or choose another directory.');
  return error;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
const signedPoints = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} points`;

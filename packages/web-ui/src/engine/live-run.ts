// A training run in the worker: core's Trainer on the worker's device, driven by a step budget
// (play = no limit, step = 1, run N = N; one step is an SFT step or an RL iteration), its rows
// batched to the page and appended to IndexedDB. Pausing takes effect between steps (the Trainer
// polls `shouldStop`), so a step in flight always completes and is logged. A run diverges by core's
// rule (train/divergence.ts), the same stop as `horizon train`'s.

import {
  isDivergedError,
  type MetricName,
  type MetricsAt,
  type MetricsRecord,
  type Phase,
  type Recipe,
  type Sample,
  sampleRecord,
  type TeacherWeights,
  Trainer,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { positionText } from '../state/run-state.ts';
import type { CheckpointRecord } from '../storage/db.ts';
import type { RunStore } from '../storage/runs.ts';
import type { ReplaySample, RunPosition, RunState, RunSummary, RunUpdate } from './api.ts';
import { Coalescer } from './coalescer.ts';

/** Batches reach the page at most this often. */
export const UPDATE_INTERVAL_MS = 250;
/**
 * A checkpoint goes to IndexedDB at least this often while training (and on every pause and at
 * the recipe's checkpoint interval), so a reload loses at most this much work. The tiny model's
 * checkpoint reads back and stores in a few milliseconds.
 */
export const CHECKPOINT_EVERY_MS = 3000;

/** What of a rollout's last-step info reaches the page (the anti-hack lab reads it; views/labs/antihack-lab.ts). */
export const LAB_INFO_KEYS = ['calls', 'hackAttempt', 'hackRead', 'correct'] as const;

/** A rollout as the completions table shows it: the record `horizon train` writes to samples.jsonl, numbers decoded. */
export function replaySample(phase: Phase, step: number, sample: Sample, pieces: string[], channels?: Record<string, Float32Array>): ReplaySample {
  const record = sampleRecord(sample, { phase, step }, { pieces, ...(channels ? { channels } : {}) });
  const info = Object.fromEntries(LAB_INFO_KEYS.filter((k) => sample.meta[k] !== undefined).map((k) => [k, sample.meta[k]]));
  return {
    ...record,
    channels: Object.fromEntries(Object.entries(record.channels ?? {}).map(([name, values]) => [name, values.map(Number)])),
    ...(Object.keys(info).length > 0 ? { info } : {}),
  };
}

/** A lab's view of the run (views/labs/): every RL iteration's and evaluation's rollouts as core's Sample, with the trainer, before they are batched to the page. */
export interface RunObserver {
  onSamples(phase: Phase, step: number, rows: { sample: Sample; channels?: Record<string, Float32Array> }[], trainer: Trainer): Promise<void> | void;
  /** Releases what the observer holds; the run waits for it (an observer's own GPU work may be in flight). */
  dispose?(): Promise<void> | void;
}

export class LiveRun {
  state: RunState = 'paused';
  position: RunPosition | null = null;
  private readonly trainer: Trainer;
  private budget = 0;
  private loop: Promise<void> | null = null;
  private message: string | undefined;
  private pending: { records: MetricsRecord[]; samples: ReplaySample[] } = { records: [], samples: [] };
  private saved = { records: 0, samples: 0 };
  private storageFailed = false;
  private readonly updates: Coalescer;
  /** The latest checkpoint saved, and steps trained since. */
  private checkpointed: RunPosition | undefined;
  private stepsSinceCheckpoint = 0;
  private lastCheckpointAt = performance.now();
  /** The state or checkpoint changed since the summary was last written to IndexedDB. */
  private summaryDirty = true;
  private sentFirstRow = false;

  constructor(
    gpu: Gpu,
    readonly recipe: Recipe,
    readonly summary: RunSummary,
    private readonly store: RunStore,
    private readonly listener: (update: RunUpdate) => void,
    private readonly notify: (message: string) => void,
    from?: CheckpointRecord,
    /** Distillation's teachers (engine/teacher-source.ts), read before the run starts. */
    teachers?: readonly TeacherWeights[],
    private readonly observer?: RunObserver,
  ) {
    this.trainer = new Trainer(gpu, recipe, teachers ? { teachers } : {});
    if (from) {
      this.trainer.restore(from.checkpoint);
      this.saved = { records: from.records, samples: from.samples };
      this.position = from.position;
      this.checkpointed = from.position;
    }
    this.updates = new Coalescer(UPDATE_INTERVAL_MS, () => void this.flush());
  }

  get done(): boolean {
    return this.state === 'finished' || this.state === 'diverged' || this.state === 'failed';
  }

  /** Trains `steps` more steps (Infinity: to the end). A run already training just gets the new budget. */
  resume(steps = Number.POSITIVE_INFINITY): void {
    if (this.done) return;
    this.budget = steps;
    this.loop ??= this.runLoop();
  }

  pause(): void {
    this.budget = 0;
  }

  /** Pauses and waits for the step in flight to finish. */
  async stop(): Promise<void> {
    this.budget = 0;
    await this.loop;
  }

  /** Stops and releases the run's GPU memory (models, optimizers, caches): Reset must not leak. */
  async dispose(): Promise<void> {
    await this.stop();
    if (!this.done) {
      // The saved run says it was stopped here, not that it finished (docs/ui.md §12).
      this.state = 'interrupted';
      this.message = `Stopped by Reset at ${positionText(this.position)}.`;
      this.summaryDirty = true;
      await this.flush();
    }
    await this.observer?.dispose?.();
    this.trainer.dispose();
  }

  private setState(state: RunState, message?: string): void {
    this.state = state;
    this.message = message;
    this.summaryDirty = true;
    this.updates.now();
  }

  private async runLoop(): Promise<void> {
    this.sentFirstRow = false;
    this.setState('running');
    const { trainer, recipe } = this;
    const ended = () => trainer.iteration >= recipe.rl.iterations;
    try {
      // trainer.run() returns at a pause or when a time-based checkpoint is due; it picks up where
      // it stopped (SFT step, RL iteration) when called again.
      while (this.budget > 0 && !ended()) {
        const before = trainer.globalStep;
        await trainer.run({
          onMetrics: (phase, step, metrics, at) => this.onMetrics(phase, step, metrics, at),
          onSamples: async (phase, step, rows) => {
            await this.observer?.onSamples(phase, step, rows, trainer);
            for (const { sample, channels } of rows) {
              const pieces = sample.tokens.map((id) => trainer.tokenizer.decode([id]));
              this.pending.samples.push(replaySample(phase, step, sample, pieces, channels));
            }
            this.updates.schedule();
          },
          onCheckpoint: (_step, save) => this.saveCheckpoint(save),
          shouldStop: () => this.budget <= 0 || this.checkpointDue(),
        });
        if (this.state === 'running' && this.checkpointDue()) await this.saveCheckpoint();
        else if (trainer.globalStep === before) break; // nothing ran and nothing is due: never spin
      }
      if (this.state === 'running') {
        if (!ended()) await this.saveCheckpoint();
        this.setState(ended() ? 'finished' : 'paused');
      }
    } catch (error) {
      // The diverged row is already in `pending`; the message names the metric and the step.
      if (isDivergedError(error)) this.setState('diverged', `Diverged: ${error.message.replace(/^training diverged: /, '')}.`);
      else this.setState('failed', `Training stopped with an error: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      this.loop = null;
    }
  }

  private checkpointDue(): boolean {
    // Never due once storage failed: run() would return at once, again and again.
    return !this.storageFailed && this.stepsSinceCheckpoint > 0 && performance.now() - this.lastCheckpointAt >= CHECKPOINT_EVERY_MS;
  }

  /**
   * Writes the run's rows so far, then its checkpoint counting them: IndexedDB runs read-write
   * transactions in the order they were created, so the checkpoint never counts a row not saved.
   */
  private async saveCheckpoint(save: () => ReturnType<Trainer['checkpoint']> = () => this.trainer.checkpoint()): Promise<void> {
    if (this.stepsSinceCheckpoint === 0 || this.storageFailed || !this.position) return;
    const checkpoint = await save();
    const position = this.position;
    this.stepsSinceCheckpoint = 0;
    this.lastCheckpointAt = performance.now();
    await this.flush();
    try {
      await this.store.saveCheckpoint({
        runId: this.summary.id,
        checkpoint,
        position,
        records: this.saved.records,
        samples: this.saved.samples,
        savedAt: Date.now(),
      });
      this.checkpointed = position;
      this.summaryDirty = true;
      await this.flush(); // the summary names the new checkpoint
    } catch (error) {
      this.storageFailed = true;
      this.notify(`${(error as Error).message} Training continues, but this run cannot be resumed after a reload.`);
    }
  }

  private onMetrics(phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>, at: MetricsAt): void {
    this.pending.records.push({ phase, step, global_step: at.globalStep, time_s: at.seconds, metrics });
    const total = phase === 'sft' ? this.recipe.sft.steps : this.recipe.rl.iterations;
    this.position = { phase, step, total };
    if (phase !== 'eval') {
      this.budget--;
      this.stepsSinceCheckpoint++;
    }
    // The first row after Play goes at once (feedback within two seconds); later ones are batched.
    if (!this.sentFirstRow) {
      this.sentFirstRow = true;
      this.updates.now();
    } else this.updates.schedule();
  }

  /** The summary as IndexedDB keeps it: counts, and the state a reload will find. */
  private savedSummary(): RunSummary {
    return {
      ...this.summary,
      metricsRows: this.saved.records,
      samples: this.saved.samples,
      progress: {
        state: this.state,
        position: this.position,
        ...(this.checkpointed ? { checkpoint: this.checkpointed } : {}),
        ...(this.message ? { message: this.message } : {}),
      },
    };
  }

  /** Sends the rows logged since the last batch to the page and appends them to IndexedDB. */
  private async flush(): Promise<void> {
    const { records, samples } = this.pending;
    this.pending = { records: [], samples: [] };
    this.listener({ runId: this.summary.id, state: this.state, position: this.position, records, samples, ...(this.message ? { message: this.message } : {}) });
    if (this.storageFailed) return;
    if (records.length === 0 && samples.length === 0 && !this.summaryDirty) return;
    const first = { ...this.saved };
    this.saved = { records: first.records + records.length, samples: first.samples + samples.length };
    this.summaryDirty = false;
    const summary = this.savedSummary();
    try {
      await this.store.appendRows(summary, this.recipe, { records, first: first.records }, { samples, first: first.samples });
    } catch (error) {
      // Training goes on (the page holds every row); the banner says the run will not survive a reload.
      this.storageFailed = true;
      this.notify(`${(error as Error).message} Training continues, but this run will not be restored after a reload.`);
    }
  }
}

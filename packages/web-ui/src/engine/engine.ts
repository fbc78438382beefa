// The engine behind the worker boundary: owns the WebGPU device (opened once, on first use), runs
// the kernels, parses replays and keeps runs in IndexedDB. Nothing here touches the DOM.

import {
  checkVocabulary,
  declaresRole,
  type HiddenTestFsEpisodesRequest,
  type HiddenTestFsEpisodesResult,
  loadTeachers,
  type Recipe,
  recipeVocabulary,
  resolveRecipe,
  runHiddenTestFsEpisodes,
  type TeacherWeights,
  Trainer,
} from '@horizon/core';
import { type DeviceReport, type Gpu, gae, gaeRef, isGpuError } from '@horizon/kernels';
import { acquireNavigatorGpu } from '@horizon/kernels/navigator';
import { cliCommand } from '../state/url-state.ts';
import { RunStore } from '../storage/runs.ts';
import type {
  DeviceStatus,
  EngineApi,
  GaeAnswer,
  GaeRequest,
  ImportOutcome,
  LabKind,
  Notice,
  ReplayFile,
  RolloutGaeAnswer,
  RolloutGaeRequest,
  RunSummary,
  RunUpdate,
  RunView,
  TrainingRequest,
} from './api.ts';
import { computeWalkthrough } from './gae-walkthrough.ts';
import { GenacLab } from './genac-lab.ts';
import type { GenacLabStatus, GenacProbeAnswer, GenacProbeRequest, GenacRetrainRequest } from './genac-lab-data.ts';
import { LiveRun } from './live-run.ts';
import { OpidLab } from './opid-lab.ts';
import type { OpidLabState, OpidRescoreAnswer, OpidRescoreRequest } from './opid-lab-data.ts';
import { type ParsedReplay, parseReplay } from './replay-parse.ts';
import { StoredRunTeacherSource } from './teacher-source.ts';
import { computeWalk } from './walk.ts';
import type { WalkAnswers, WalkKind, WalkRequest } from './walk-api.ts';

/** The bundled replay's manifest (`public/replay/manifest.json`). */
export interface ReplayManifest {
  format: 'horizon.replay/1';
  /** Shown in the runs list, e.g. "tiny (PPO, 4 iterations)". */
  name: string;
  /** How the run was made, e.g. "pnpm horizon train --recipe tiny, commit abc1234". */
  origin: string;
  /** File names relative to the manifest. */
  metrics: string;
  samples?: string;
  /** More shipped runs for the compare view (metrics only), e.g. GRPO and RLOO on the same seed and budget. */
  compare?: { name: string; origin: string; metrics: string }[];
}

/** Short device label: adapter, backend, and whether it is software. */
export function deviceLabel(report: DeviceReport): string {
  const name = [report.vendor, report.architecture, report.description].filter(Boolean).join(' / ') || 'unnamed adapter';
  return `${name} via ${report.backend} (${report.isSoftware ? 'software device' : 'hardware GPU'})`;
}

function viewOf(parsed: ParsedReplay, summary: Omit<RunSummary, 'metricsRows' | 'samples'>): RunView {
  return {
    summary: { ...summary, metricsRows: parsed.metrics.records.length, samples: parsed.samples.length, ...(parsed.metrics.tornTail ? { tornTail: true } : {}) },
    recipe: parsed.metrics.header.recipe,
    records: parsed.metrics.records,
    samples: parsed.samples,
  };
}

const recipeName = (parsed: ParsedReplay): string =>
  typeof parsed.metrics.header.recipe.name === 'string' ? parsed.metrics.header.recipe.name : 'unnamed run';

export class Engine implements EngineApi {
  private opened: Promise<{ gpu: Gpu | null; status: DeviceStatus }> | undefined;
  private readonly listeners: ((notice: Notice) => void)[] = [];
  private readonly pending: Notice[] = [];
  private readonly store: RunStore;
  private live: LiveRun | null = null;
  /** The OPID lab's observer of the live run, when the live run is the lab's. */
  private opid: OpidLab | null = null;
  /** The GenAC lab's observer of the live run, when the live run is the lab's. */
  private genac: GenacLab | null = null;
  /** Warm-ups by recipe: one SFT step on a throwaway trainer, so the kernels are compiled before Play. */
  private readonly warmed = new Map<string, Promise<void>>();

  constructor(dbName?: string) {
    this.store = new RunStore((message) => this.emit({ kind: 'storage', message }), dbName);
  }

  private emit(notice: Notice): void {
    if (this.listeners.length === 0) this.pending.push(notice);
    for (const listener of this.listeners) listener(notice);
  }

  async onNotice(listener: (notice: Notice) => void): Promise<void> {
    this.listeners.push(listener);
    for (const notice of this.pending.splice(0)) listener(notice);
  }

  private openDevice(): Promise<{ gpu: Gpu | null; status: DeviceStatus }> {
    this.opened ??= acquireNavigatorGpu().then(
      (gpu) => ({ gpu, status: { kind: 'gpu', line: deviceLabel(gpu.report), remedy: '' } as DeviceStatus }),
      (error: unknown) => {
        if (!isGpuError(error)) throw error;
        return { gpu: null, status: { kind: 'none', line: error.message.replace(error.remedy, '').trim(), remedy: error.remedy } as DeviceStatus };
      },
    );
    return this.opened;
  }

  async device(): Promise<DeviceStatus> {
    return (await this.openDevice()).status;
  }

  async gae(request: GaeRequest): Promise<GaeAnswer> {
    const { gpu, status } = await this.openDevice();
    const line = gpu ? status.line : `float64 reference on the CPU — no WebGPU device: ${status.line}`;
    return computeWalkthrough(gpu, request, line);
  }

  async walkthrough<K extends WalkKind>(request: Extract<WalkRequest, { kind: K }>): Promise<WalkAnswers[K]> {
    const { gpu, status } = await this.openDevice();
    const line = gpu ? status.line : `float64 reference on the CPU — no WebGPU device: ${status.line}`;
    return (await computeWalk(gpu, request, line)) as WalkAnswers[K];
  }

  async rolloutGae(request: RolloutGaeRequest): Promise<RolloutGaeAnswer> {
    const { gpu } = await this.openDevice();
    const T = request.rewards.length;
    const twice = (x: number[], C: typeof Float32Array | typeof Uint32Array) => {
      const out = new C(2 * T);
      out.set(x, 0);
      out.set(x, T);
      return out;
    };
    const inputs = {
      rewards: twice(request.rewards, Float32Array) as Float32Array,
      values: twice(request.values, Float32Array) as Float32Array,
      actionMask: twice(request.actionMask, Uint32Array) as Uint32Array,
    };
    const options = { B: 2, T, gamma: request.gamma, lambda: [request.lambda, 0] };
    const { advantages, returns } = gpu ? await gae(gpu, inputs, options) : gaeRef(inputs, options);
    const a = Array.from(advantages);
    return { advantages: a.slice(0, T), deltas: a.slice(T), returns: Array.from(returns).slice(0, T), computedOn: gpu ? 'gpu' : 'cpu' };
  }

  async importReplay(files: ReplayFile[]): Promise<ImportOutcome> {
    const texts = await Promise.all(files.map(async (f) => ({ name: f.name, text: await f.file.text() })));
    const parsed = parseReplay(texts);
    const run = viewOf(parsed, {
      id: crypto.randomUUID(),
      name: recipeName(parsed),
      source: 'replay',
      origin: files.map((f) => f.name).join(' + '),
      createdAt: Date.now(),
    });
    try {
      await this.store.saveRun(run.summary, run.recipe, run.records, run.samples);
      return { run, remarks: parsed.remarks };
    } catch (error) {
      return { run, remarks: parsed.remarks, storageProblem: (error as Error).message };
    }
  }

  async bundledReplay(manifestUrl: string): Promise<RunView | null> {
    const response = await fetch(manifestUrl);
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`The bundled replay's manifest (${manifestUrl}) answered HTTP ${response.status}.`);
    const manifest = (await response.json()) as ReplayManifest;
    if (manifest.format !== 'horizon.replay/1' || typeof manifest.metrics !== 'string')
      throw new Error(`The bundled replay's manifest (${manifestUrl}) is not a horizon.replay/1 manifest.`);
    const names = [manifest.metrics, ...(manifest.samples ? [manifest.samples] : [])];
    const texts = await Promise.all(
      names.map(async (name) => {
        const file = await fetch(new URL(name, manifestUrl));
        if (!file.ok) throw new Error(`The bundled replay lists ${name}, but fetching it answered HTTP ${file.status}.`);
        return { name, text: await file.text() };
      }),
    );
    return viewOf(parseReplay(texts), { id: 'bundled', name: manifest.name, source: 'bundled', origin: manifest.origin, createdAt: 0 });
  }

  /**
   * Compiles the kernels a run of `request` starts with, before Play: the first SFT step compiles
   * every SFT pipeline, about 3 s on SwiftShader (docs/ui.md §15: the first point must be charted within
   * 2 s of Play). The runtime caches pipelines per device, so a step on a throwaway trainer, then
   * disposed, leaves them ready for the real run. Does nothing while a run trains.
   */
  async warmUp(request: TrainingRequest): Promise<void> {
    let recipe: Recipe;
    try {
      recipe = resolveRecipe({ preset: request.recipe, sets: [...(request.seed !== undefined ? [`seed=${request.seed}`] : []), ...request.sets] }).recipe;
    } catch {
      return; // an invalid recipe has nothing to warm; the panel shows its errors
    }
    const { gpu } = await this.openDevice();
    if (!gpu || recipe.sft.steps === 0 || this.live?.state === 'running') return;
    // Pipelines depend on shapes, not on seeds or learning rates: key on what sizes the kernels.
    const key = JSON.stringify([recipe.model, recipe.sft.batchSize, recipe.task]);
    let warm = this.warmed.get(key);
    if (!warm) {
      warm = (async () => {
        const trainer = new Trainer(gpu, { ...recipe, sft: { ...recipe.sft, steps: 1 } });
        try {
          let rows = 0;
          await trainer.run({ onMetrics: () => void rows++, shouldStop: () => rows >= 1 });
        } finally {
          trainer.dispose();
        }
      })().catch(() => undefined); // a failed warm-up only means the first step compiles instead
      this.warmed.set(key, warm);
    }
    await warm;
  }

  async compareReplays(manifestUrl: string): Promise<RunView[]> {
    const response = await fetch(manifestUrl);
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`The bundled replay's manifest (${manifestUrl}) answered HTTP ${response.status}.`);
    const manifest = (await response.json()) as ReplayManifest;
    return Promise.all(
      (manifest.compare ?? []).map(async (entry) => {
        const file = await fetch(new URL(entry.metrics, manifestUrl));
        if (!file.ok) throw new Error(`The bundled replay lists ${entry.metrics}, but fetching it answered HTTP ${file.status}.`);
        const parsed = parseReplay([{ name: entry.metrics, text: await file.text() }]);
        return viewOf(parsed, { id: `bundled:${entry.metrics}`, name: entry.name, source: 'bundled', origin: entry.origin, createdAt: 0 });
      }),
    );
  }

  async startTraining(request: TrainingRequest, listener: (update: RunUpdate) => void, lab?: LabKind): Promise<RunView> {
    const sets = [...(request.seed !== undefined ? [`seed=${request.seed}`] : []), ...request.sets];
    const { recipe } = resolveRecipe({ preset: request.recipe, sets }); // throws the recipe's problems, one sentence each
    const teachers = await this.teachersOf(recipe); // refused before the current run is reset
    const { gpu, status } = await this.openDevice();
    if (!gpu) throw new Error(`Live training needs WebGPU: ${status.line} ${status.remedy}`.trim());
    await Promise.all(this.warmed.values()); // a warm-up in flight finishes first: it compiles what this run needs
    await this.reset();
    const summary: RunSummary = {
      id: crypto.randomUUID(),
      name: recipe.name,
      source: 'live',
      origin: `trained in this browser: ${cliCommand(request.recipe, request.seed, request.sets)}`,
      createdAt: Date.now(),
      metricsRows: 0,
      samples: 0,
      request: { recipe: request.recipe, ...(request.seed !== undefined ? { seed: request.seed } : {}), sets: [...request.sets] },
    };
    this.opid = lab === 'opid' ? new OpidLab(gpu, recipe, status.line) : null;
    this.genac = lab === 'genac' ? new GenacLab(gpu, recipe, request, summary.id, status.line) : null;
    this.live = new LiveRun(
      gpu,
      recipe,
      summary,
      this.store,
      listener,
      (message) => this.emit({ kind: 'storage', message }),
      undefined,
      teachers,
      this.opid ?? this.genac ?? undefined,
    );
    return { summary, recipe, records: [], samples: [] };
  }

  async opidLab(): Promise<OpidLabState | null> {
    return this.opid?.state() ?? null;
  }

  async opidRescore(request: OpidRescoreRequest): Promise<OpidRescoreAnswer> {
    if (!this.opid) throw new Error('No OPID lab run: start one in the OPID lab.');
    return this.opid.rescore(request);
  }

  async genacLab(): Promise<GenacLabStatus | null> {
    return this.genac?.status() ?? null;
  }

  /** The GenAC lab's observer, once its run is not training (a probe or retrain between two of its steps would mix weights). */
  private genacIdle(runId: string, what: string): GenacLab {
    const lab = this.genac;
    if (!lab || lab.runId !== runId)
      throw new Error('This GenAC run is no longer the worker’s live run (another was trained since): train it again to probe its critics.');
    if (this.live?.state === 'running') throw new Error(`The run is still training: ${what} once it is paused or finished.`);
    return lab;
  }

  async genacProbe(request: GenacProbeRequest): Promise<GenacProbeAnswer> {
    return this.genacIdle(request.runId, 'its critics can be probed').probe(request);
  }

  async genacRetrain(request: GenacRetrainRequest): Promise<GenacLabStatus> {
    const lab = this.genacIdle(request.runId, 'a critic retrains');
    // Critic-only iterations continue past the recipe's last, so the run must have reached it.
    if (this.live?.state !== 'finished') throw new Error('Retraining continues after the run’s last iteration: let it finish first.');
    return lab.retrain(request);
  }

  /** Distillation's teachers, from runs trained in this browser (`distill.teachers`: names or ids). */
  private async teachersOf(recipe: Recipe): Promise<TeacherWeights[] | undefined> {
    return declaresRole(recipe, 'teacher') ? loadTeachers(recipe, new StoredRunTeacherSource(this.store)) : undefined;
  }

  async resumeRun(id: string, listener: (update: RunUpdate) => void): Promise<RunView> {
    const { gpu, status } = await this.openDevice();
    if (!gpu) throw new Error(`Resuming trains on WebGPU: ${status.line} ${status.remedy}`.trim());
    const run = await this.store.loadRun(id);
    const request = run.summary.request;
    if (run.summary.source !== 'live' || !request)
      throw new Error(`Run "${run.summary.name}" was not trained in this browser, so it has no checkpoint here to resume from.`);
    const sets = [...(request.seed !== undefined ? [`seed=${request.seed}`] : []), ...request.sets];
    const { recipe } = resolveRecipe({ preset: request.recipe, sets });
    const from = await this.store.loadCheckpoint(id);
    // A checkpoint of another vocabulary is refused before any row is cut.
    if (from) checkVocabulary(from.checkpoint.vocabulary, recipeVocabulary(recipe), `the checkpoint of run "${run.summary.name}"`);
    const teachers = await this.teachersOf(recipe);
    await this.reset();
    const records = from?.records ?? 0;
    const samples = from?.samples ?? 0;
    await this.store.truncateRows(run.summary, records, samples);
    const summary: RunSummary = {
      ...run.summary,
      metricsRows: records,
      samples,
      progress: { state: 'paused', position: from?.position ?? null, ...(from ? { checkpoint: from.position } : {}) },
    };
    this.live = new LiveRun(gpu, recipe, summary, this.store, listener, (message) => this.emit({ kind: 'storage', message }), from, teachers);
    return { summary, recipe, records: run.records.slice(0, records), samples: run.samples.slice(0, samples) };
  }

  async resume(steps?: number): Promise<void> {
    if (!this.live) throw new Error('No live run: start one with Play.');
    if (steps !== undefined && !(Number.isInteger(steps) && steps >= 1)) throw new RangeError(`steps must be a positive integer, got ${steps}`);
    this.live.resume(steps);
  }

  async pause(): Promise<void> {
    this.live?.pause();
  }

  async reset(): Promise<void> {
    const live = this.live;
    this.live = null;
    this.opid = null;
    this.genac = null;
    await live?.dispose();
  }

  async hiddenTestFsEpisodes(request: HiddenTestFsEpisodesRequest): Promise<{ deviceLine: string; result: HiddenTestFsEpisodesResult }> {
    const { gpu, status } = await this.openDevice();
    if (!gpu) throw new Error(`HiddenTestFS episodes sample on WebGPU: ${status.line} ${status.remedy}`.trim());
    return { deviceLine: status.line, result: await runHiddenTestFsEpisodes(gpu, request) };
  }

  listRuns(): Promise<RunSummary[]> {
    return this.store.listRuns();
  }

  loadRun(id: string): Promise<RunView> {
    return this.store.loadRun(id);
  }

  deleteRun(id: string): Promise<void> {
    return this.store.deleteRun(id);
  }
}

// The contract between the page and the engine worker. The page only renders: it calls these
// methods through comlink and draws what comes back; the worker owns the WebGPU device, the kernels
// and IndexedDB. Everything crossing the boundary is structured-cloneable plain data.
//
// Live training: `startTraining` builds core's Trainer on the worker's device; `resume`, `pause`
// and `reset` drive it; the worker pushes `RunUpdate` batches (new metrics rows, samples, the run
// state) to the page's `comlink.proxy` listener at most four times a second and writes the same
// rows to IndexedDB. The page keeps one `RunView` per run and appends to it, whether the rows come
// from a replay, from IndexedDB after a reload, or from the trainer.

import type { HiddenTestFsEpisodesRequest, HiddenTestFsEpisodesResult, JsonValue, MetricsRecord, Phase, SampleRecord } from '@horizon/core';
import type { GenacLabStatus, GenacProbeAnswer, GenacProbeRequest, GenacRetrainRequest } from './genac-lab-data.ts';
import type { OpidLabState, OpidRescoreAnswer, OpidRescoreRequest } from './opid-lab-data.ts';
import type { WalkAnswers, WalkKind, WalkRequest } from './walk-api.ts';

/** A samples.jsonl record with its channels decoded to numbers ("NaN" strings become NaN). */
export interface ReplaySample extends Omit<SampleRecord, 'channels'> {
  /** Per-token channels (advantage, value, ratio, kl, logprob, …), each aligned with `tokens`. */
  channels: Record<string, number[]>;
  /**
   * A live rollout's episode record from its last step's info (LAB_INFO_KEYS): HiddenTestFS's `calls`
   * (each call's line, exit status and the monitor's decision), `hackAttempt`, `hackRead` and
   * `correct`, for the anti-hack lab; absent on replays (samples.jsonl does not keep it).
   */
  info?: Record<string, JsonValue>;
}

/** Which device computed something, for the label next to the numbers. */
export interface DeviceStatus {
  /** 'gpu': a WebGPU device is open; 'none': this browser has none (`reason` says why). */
  kind: 'gpu' | 'none';
  /** One line: adapter, backend and runtime, or why there is no device. */
  line: string;
  /** What to do about a missing device; empty when there is one. */
  remedy: string;
}

/** GAE walkthrough request: the sliders and toggles. */
export interface GaeRequest {
  gamma: number;
  lambda: number;
  /** Outcome reward on the last action token: 1 = correct answer, 0 = wrong. */
  outcome: number;
}

/** One computed walkthrough; arrays are [T], aligned with the trajectory's tokens. */
export interface GaeAnswer {
  request: GaeRequest;
  /** r_t as the kernel received it. */
  rewards: number[];
  /** V_t as the kernel received it (observation and prompt values are never read). */
  values: number[];
  /** 1 on action tokens. */
  actionMask: number[];
  /** δ_t: the same kernel with λ = 0 (then A_t = δ_t); 0 off the action mask. */
  deltas: number[];
  /** A_t with the requested λ; 0 off the action mask. */
  advantages: number[];
  /** R̂_t = A_t + V_t; 0 off the action mask. */
  returns: number[];
  /** 'gpu' when the WGSL kernel computed it, 'cpu' for the float64 reference (no WebGPU). */
  computedOn: 'gpu' | 'cpu';
  /** The device line, or why the CPU reference was used. */
  deviceLine: string;
  /** Worker-side wall time of the computation, ms (kernel dispatch and readback included). */
  millis: number;
}

/** GAE over one logged rollout, token by token (the completions table's "explain this advantage"). */
export interface RolloutGaeRequest {
  /** r_t per token: the task reward on the last action token, minus β·KL on each action token when KL is in the reward. */
  rewards: number[];
  /** V_t per token, as logged (the critic's value of the state before the token). */
  values: number[];
  /** 1 on action tokens. */
  actionMask: number[];
  gamma: number;
  lambda: number;
}

export interface RolloutGaeAnswer {
  deltas: number[];
  advantages: number[];
  returns: number[];
  computedOn: 'gpu' | 'cpu';
}

/** A run as the UI lists it. */
export interface RunSummary {
  id: string;
  name: string;
  /** 'live': trained in this browser; 'replay': opened from files; 'bundled': shipped with the app (never stored). */
  source: 'live' | 'replay' | 'bundled';
  /** Where it came from: the file names, or the bundled replay's description. */
  origin: string;
  createdAt: number;
  metricsRows: number;
  samples: number;
  /** A live run's state as last saved: 'running' or 'paused' found after a reload means it was interrupted. */
  progress?: RunProgress;
  /** The log's last line was cut off: the writer stopped mid-line (a crash, a copy of a run in progress). */
  tornTail?: boolean;
  /** What a live run trains (to resume it, and for the CLI line). */
  request?: TrainingRequest;
}

/** Where a live run stood when its summary was last saved, and its latest checkpoint. */
export interface RunProgress {
  state: RunState;
  position: RunPosition | null;
  /** The latest checkpoint's position (in IndexedDB's `checkpoints` store), absent before the first. */
  checkpoint?: RunPosition;
  /** Why it stopped, when it did (a Reset, a divergence, an error). */
  message?: string;
}

/** Everything the views draw for one run. */
export interface RunView {
  summary: RunSummary;
  /** The resolved recipe from the metrics.jsonl header (as saved; not re-validated). */
  recipe: Record<string, unknown>;
  records: MetricsRecord[];
  samples: ReplaySample[];
}

/** A file handed to the engine: its name and text (the page reads File objects lazily in the worker). */
export interface ReplayFile {
  name: string;
  file: Blob;
}

export interface ImportOutcome {
  run: RunView;
  /** Why the run could not be saved to IndexedDB (quota, blocked upgrade…); absent when it was saved. */
  storageProblem?: string;
  /** Non-fatal remarks about the files (a torn last line, a missing samples file). */
  remarks: string[];
}

/**
 * The run-state badge's states (docs/ui.md §12); 'failed' = the engine threw (the message says
 * why); 'interrupted' = a saved live run that stopped before its end without finishing (a reload,
 * a closed tab, Reset), resumable from its last checkpoint; a replay that ends early reads the same.
 */
export type RunState = 'idle' | 'running' | 'paused' | 'finished' | 'diverged' | 'failed' | 'interrupted';

/** What to train: the playground's preset, seed and edited fields (the CLI's --recipe and --set). */
export interface TrainingRequest {
  recipe: string;
  seed?: number;
  sets: string[];
}

/** A lab whose live run the worker watches (views/labs/): it keeps what the lab shows beyond the logged rows. */
export type LabKind = 'opid' | 'genac';

/** Where a live run is: the last logged record's phase and step, out of that phase's total. */
export interface RunPosition {
  phase: Phase;
  step: number;
  /** SFT steps or RL iterations of the recipe; for 'eval', the RL iterations. */
  total: number;
}

/** One batch from a live run: rows logged since the previous batch, and the state now. */
export interface RunUpdate {
  runId: string;
  state: RunState;
  position: RunPosition | null;
  records: MetricsRecord[];
  samples: ReplaySample[];
  /** Why the run stopped, when it diverged or failed. */
  message?: string;
}

/** Something the worker tells the page without being asked (a storage event in another tab). */
export interface Notice {
  kind: 'storage';
  message: string;
}

export interface EngineApi {
  /** Opens the WebGPU device on first use; later calls return the same status. */
  device(): Promise<DeviceStatus>;
  /** GAE over the walkthrough trajectory, on the GPU kernel when there is a device. */
  gae(request: GaeRequest): Promise<GaeAnswer>;
  /** One of the RL walkthroughs (PPO clipping, groups, KTO, span-KTO, distillation) on its kernel, on the GPU when there is a device. */
  walkthrough<K extends WalkKind>(request: Extract<WalkRequest, { kind: K }>): Promise<WalkAnswers[K]>;
  /** GAE over one rollout's tokens, on the GPU kernel when there is a device (row 2 with λ = 0 gives δ). */
  rolloutGae(request: RolloutGaeRequest): Promise<RolloutGaeAnswer>;
  /** Parses replay files (metrics.jsonl, samples.jsonl), shows them, and saves them as a run. */
  importReplay(files: ReplayFile[]): Promise<ImportOutcome>;
  /** The replay shipped under `public/replay/` (manifest at `manifestUrl`), or null if none ships. */
  bundledReplay(manifestUrl: string): Promise<RunView | null>;
  /** The other shipped runs the compare view overlays (the manifest's `compare` list; metrics only). */
  compareReplays(manifestUrl: string): Promise<RunView[]>;
  /** Runs saved in this browser, newest first. */
  listRuns(): Promise<RunSummary[]>;
  loadRun(id: string): Promise<RunView>;
  deleteRun(id: string): Promise<void>;
  /** Compiles the kernels `request`'s first steps use, so Play charts its first point at once; no-op while training. */
  warmUp(request: TrainingRequest): Promise<void>;
  /** Starts a live run (paused until `resume`); throws the recipe's problems or "no WebGPU". Replaces a previous live run. */
  startTraining(request: TrainingRequest, listener: (update: RunUpdate) => void, lab?: LabKind): Promise<RunView>;
  /** The OPID lab's latest RL iteration (rollouts, their groups' skills, each step's routing); null before the first, or when the live run is not the OPID lab's. */
  opidLab(): Promise<OpidLabState | null>;
  /** Rescores one rollout of that iteration under a routing, with the policy that sampled it (engine/opid-lab.ts). */
  opidRescore(request: OpidRescoreRequest): Promise<OpidRescoreAnswer>;
  /** The GenAC lab's two critics (the run's generative critic, the PPO run's value head); null when the live run is not the GenAC lab's. */
  genacLab(): Promise<GenacLabStatus | null>;
  /** Both critics on a rollout cut after some answer tokens (engine/genac-lab.ts); refused while the run trains. */
  genacProbe(request: GenacProbeRequest): Promise<GenacProbeAnswer>;
  /** Critic-only iterations of one critic, the policy frozen (core's Trainer.trainCritics); the first of the value head trains the PPO run. */
  genacRetrain(request: GenacRetrainRequest): Promise<GenacLabStatus>;
  /**
   * Makes saved run `id` the live run again from its last checkpoint (paused until `resume`): its
   * rows after the checkpoint are dropped, so the run continues exactly as the CLI's --resume does.
   * Returns the run as it now stands.
   */
  resumeRun(id: string, listener: (update: RunUpdate) => void): Promise<RunView>;
  /** Trains the live run until it finishes, or for `steps` more steps (one SFT step or one RL iteration each). */
  resume(steps?: number): Promise<void>;
  /** Stops the live run after the step in progress. */
  pause(): Promise<void>;
  /** Stops and drops the live run (its rows stay saved). */
  reset(): Promise<void>;
  /** Registers the page's listener for notices (pass it through `comlink.proxy`). */
  onNotice(listener: (notice: Notice) => void): Promise<void>;
  /**
   * Core's HiddenTestFS parity episodes on the worker's device (train/hidden-test-fs-episodes.ts),
   * so a test can require this worker to sample the same tokens as Node and Deno; no view calls it.
   * Throws "no WebGPU" without a device.
   */
  hiddenTestFsEpisodes(request: HiddenTestFsEpisodesRequest): Promise<{ deviceLine: string; result: HiddenTestFsEpisodesResult }>;
}

// The GenAC lab's probe and retraining, as they cross the worker boundary (engine/genac-lab.ts
// computes them, views/labs/genac-probe.ts draws them). No imports: the page's bundle reads these
// without pulling in core.

/** Critic-only PPO iterations the discriminative critic (the same seed's add-ppo value head) first trains for. */
export const GENAC_LAB_VALUE_ITERATIONS = 3;
/** What a retrain button runs by default, and at most: critic-only iterations of one critic. */
export const GENAC_LAB_RETRAIN_DEFAULT = 2;
export const GENAC_LAB_RETRAIN_MAX = 20;

/** Which critic a retrain trains: GenAC's generative critic, or the PPO run's value head. */
export type GenacLabCritic = 'generative' | 'value-head';

/** Which weights of the generative critic write the probe's critique. */
export type GenacProbeWeights = 'now' | 'sampled';

export interface GenacProbeRequest {
  /** The run this page's lab shows; a probe of another run (a seed trained since) is refused. */
  runId: string;
  /** The logged RL iteration (1-based) whose rollout is probed. */
  iteration: number;
  rolloutId: number;
  /** Response tokens kept: the critics read the prompt and the first `cut` tokens of the answer. */
  cut: number;
  /** The generative critic as it is now, or as it was when it sampled the iteration's critiques. */
  weights: GenacProbeWeights;
}

/** One row of a critic-only iteration's metrics, as the lab lists them. */
export interface GenacLabRow {
  /** The iteration's number in its run (critic-only iterations continue the run's count). */
  step: number;
  metrics: Record<string, number>;
}

export interface GenacProbeAnswer {
  request: GenacProbeRequest;
  /** The rollout's prompt and its response tokens, as the policy sampled them. */
  prompt: string;
  response: string[];
  /** The answer's first `cut` tokens, decoded. */
  partial: string;
  generative: {
    /** What the critic read: core's critic prompt of (prompt + partial answer, the actor's state when the iteration sampled). */
    criticPrompt: string;
    /** What it wrote, decoded without <eos>, and whether it ended with <eos>. */
    written: string;
    endedWithEos: boolean;
    /** core's parseCritique on it: the digit, or why it is malformed. */
    digit: number | null;
    malformed: string | null;
    /** digit / 10; null when malformed (training would take the batch's fallback). */
    value: number | null;
    /** The iterations the weights had been trained through, critic-only ones included. */
    trainedThrough: number;
  };
  /** The PPO run's value head at the cut; null before it is trained. */
  valueHead: {
    /** V(prompt + response[:cut]). */
    value: number;
    /** V at every cut 0…n−1 of the same rollout, one forward pass. */
    values: number[];
    /** The token ids the value head read (prompt + every response token but the last). */
    inputs: number[];
    /** RL iterations its critic has trained, all critic-only. */
    iterations: number;
  } | null;
  deviceLine: string;
  millis: number;
}

/** Where the lab's two critics stand. */
export interface GenacLabStatus {
  runId: string;
  /** RL iterations of the GenAC run, the critic-only ones included. */
  generativeIterations: number;
  /** The GenAC run's critic-only iterations, newest last. */
  generativeRows: GenacLabRow[];
  /** The PPO run beside it; null until trained. */
  valueHead: {
    iterations: number;
    /** Every iteration of its run (all critic-only: the policy is the SFT warm start throughout). */
    rows: GenacLabRow[];
  } | null;
  /** A retrain in progress: which critic, and the iterations done of how many. */
  busy: { critic: GenacLabCritic; done: number; of: number } | null;
  /** Bumped by every finished retrain, so the page knows to probe again. */
  version: number;
}

export interface GenacRetrainRequest {
  runId: string;
  critic: GenacLabCritic;
  iterations: number;
}

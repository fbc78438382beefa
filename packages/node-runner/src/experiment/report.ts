// What an experiment report declares, in code, before anything runs: the question, the claim it
// tests and the paper the claim comes from, the arms (a preset plus recipe overrides each), the
// seeds, the evaluation size and the budget it promises to keep. The runner (run-experiment.ts)
// reads nothing else, so a report file is the whole protocol of its experiment.
//
// Follows the protocol of docs/experiments/README.md: paired arms (one SFT warm start per seed,
// shared by every arm), at least 3 seeds, a final evaluation on at least 500 held-out problems
// (every one the task has, when it has fewer), and a verdict from the paired mean difference.
// Leaves out multi-process scheduling: the arms of a report run one after another in one process.

import type { MetricName } from '@horizon/core';

/** One arm: a recipe (a preset with `--set`-style overrides), trained by RL or, for a baseline, by more SFT. */
export interface Arm {
  /** Names the arm's directory (runs/experiments/NAME/<arm>/) and its line in the plots. */
  name: string;
  /** One line saying what the arm is, for the report. */
  label: string;
  preset: string;
  sets: readonly string[];
  /**
   * Overrides that apply after the warm start only (e.g. the one skill an expert specialises in):
   * they are left out of the warm start's key, so the arm starts from its seed's shared warm start.
   */
  rlSets?: readonly string[];
  /**
   * Arms of the same report whose final policies teach this one (`distill.teachers`, in order), at
   * the same seed. They run first (arms run in declared order) and keep their final checkpoint.
   */
  teachers?: readonly string[];
  /**
   * 'rl' (default): the warm start, then the recipe's RL iterations. 'sft-only': the warm start,
   * then `sftOnlySteps` more supervised steps on the same data stream, and no RL. 'expert-sft':
   * off-policy distillation — the warm start, then supervised steps on completions its `teachers`
   * sampled for the prompts the RL arms see, at the RL arms' sample and step budget (expert-sft.ts).
   */
  kind?: 'rl' | 'sft-only' | 'expert-sft';
  sftOnlySteps?: number;
}

/** A claim tested by one pair of arms: `arm` minus `against`, per seed, on final held-out success. */
export interface Comparison {
  arm: string;
  against: string;
  /**
   * Compare held-out success on this skill's problems only (a mixed task's
   * `eval/held_out_success_<skill>`), not on the whole held-out set.
   */
  skill?: string;
  /**
   * What is compared: final held-out success (default); its hacked or clean part (a task that
   * records hacks: the final evaluation's eval/held_out_hacked_success or _clean_success, the
   * monitor only logging); the final held-out mean response length in tokens ('response-length',
   * compared as a plain difference, not in points); the reward the run's training rollouts earned per
   * sampled action token (RunResult.sampledReward over sampledTokens: what its sampling bought); or
   * the arms' critics as the 'critic' probe measures them, each run's mean over its evaluation points
   * after iteration 0 (critic-probe.ts).
   */
  metric?: 'critic-value-error' | 'critic-ranking' | 'held-out-hacked' | 'held-out-clean' | 'response-length' | 'reward-per-token';
  /** The sign the claim predicts for `arm − against`. */
  direction: 'higher' | 'lower';
  /** The claim in one sentence, with the paper named (and its arXiv id). */
  claim: string;
}

export interface Report {
  name: string;
  question: string;
  /** Claims tested, each by one paired comparison; the first is the report's headline. */
  comparisons: readonly Comparison[];
  arms: readonly Arm[];
  seeds: readonly number[];
  /** Recipe overrides applied to every arm before its own (iterations, evaluation sizes, …). */
  common: readonly string[];
  /** Held-out problems of every evaluation, the final one included (≥ 500, or all the task has when it has fewer). */
  heldOutSize: number;
  /** What the report promises to cost on a quiet 2-core machine: runs and total minutes. */
  budget: { runs: number; minutes: number };
  /**
   * RL-iteration metrics the page tabulates per arm and seed (each run's mean over its iterations),
   * e.g. the critic's explained variance: what the held-out curves cannot show (training-means.ts).
   * They are read from what the runs log, so adding one does not change any run.
   */
  trainingMetrics?: readonly { name: MetricName; label: string }[];
  /**
   * What the report adds beyond the held-out curves, at every evaluation point on the batch the
   * next iteration trains on: 'groups' probes all-equal reward groups, 'critic' the critic's value
   * error and ranking accuracy against Monte-Carlo values (arms without a critic skip it).
   */
  probes?: readonly ('groups' | 'critic')[];
  /**
   * Paragraphs the page prints under "Design": how the arms are made comparable, and what of the
   * paper's claims the report leaves out and why. Words only; they change no run.
   */
  design?: readonly string[];
  /** Listed in the fidelity table (false for the runner's own check). */
  fidelity: boolean;
  /** Why it cannot run yet, if it needs recipe fields this version lacks (checked by resolving its arms). */
  needs?: string;
}

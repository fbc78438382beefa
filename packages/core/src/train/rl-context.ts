// What one RL iteration is given: the recipe and task, the method, its models by declared name, and
// the GPU pieces that sample, score and update. The trainer (trainer.ts) builds it once per run;
// tests build one by hand (testing/rl-context.ts).

import type { Algorithm } from '../algorithms/algorithm.ts';
import type { JsonValue } from '../envs/environment.ts';
import type { RolloutLimits, TokenCodec } from '../envs/episode.ts';
import type { Sample } from '../envs/sample.ts';
import type { Task } from '../envs/tasks.ts';
import type { Gpt } from '../model/gpt.ts';
import type { AdamW } from '../model/optimizer.ts';
import type { Recipe } from '../recipe/schema.ts';
import type { GpuSampler } from './gpu-sampler.ts';
import type { PolicyHistory } from './policy-history.ts';
import type { Scorer } from './scoring.ts';
import type { UpdateSteps } from './update-steps.ts';

/** Salts separating the run's random streams. */
export const STREAM = { rollout: 11, shuffle: 12, eval: 13 } as const;

/** The method's models by declared name (the policy always among them), and optimizers of the trained ones. */
export interface RlModels {
  byName: ReadonlyMap<string, Gpt> & { get(name: 'policy'): Gpt };
  optimizers: ReadonlyMap<string, AdamW>;
}

/** The teacher that scores a sample (on-policy distillation's routing, train/teachers.ts). */
export interface TeacherRouter {
  teacherFor(sample: Sample): Gpt;
}

export interface RlContext {
  recipe: Recipe;
  task: Task;
  codec: TokenCodec & { padId: number };
  algorithm: Algorithm;
  models: RlModels;
  sampler: GpuSampler;
  scorer: Scorer;
  updates: UpdateSteps;
  limits: RolloutLimits;
  /**
   * Where an iteration's samples come from when they are not the policy's rollouts: labelled
   * completions from a file (KTO's kto.source = "file", labelled-examples.ts), the `count` rows from
   * training position `start`.
   */
  offline?: (start: number, count: number) => Sample[];
  /** The rollout-lag simulator's past policies when `rl.rolloutLag` > 0 (rollouts sample the oldest). */
  history?: PolicyHistory;
  /** Trainer state the method keeps across iterations (UpdateContext.state); saved in checkpoints. */
  methodState?: Record<string, JsonValue>;
  /** Present when the method scores with teachers (the `teacherLogp` score). */
  teachers?: TeacherRouter;
  /**
   * Critic-only iterations (Trainer.trainCritics): the method's updates of the policy are skipped,
   * so only its other models train (PPO's value head, GenAC's generative critic).
   */
  policyFrozen?: boolean;
}

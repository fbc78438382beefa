// Black-box training, platform-free: an outside agent samples from the served policy (any OpenAI
// client against `horizon serve --train`), its turns are recorded per session
// (serve/session-recorder.ts), it posts each session's reward, and once `rl.promptsPerIteration`
// groups of `rl.groupSize` rewarded sessions are complete the trainer runs one RL iteration of the
// recipe's method on them (train/external-trajectories.ts → Trainer.trainOnSamples), between sampler
// calls (serve/policy-gate.ts), so every later request samples from the new policy. This is slime's
// black-box mode (THUDM/slime: rollouts from an external agent through an OpenAI-compatible server)
// at Horizon's scale: one process, one GPU, the policy updated in place. Left out: a verifier that
// scores sessions itself (the client's reward is taken as given), asynchronous off-policy updates.

import type { MetricName } from '../metrics/glossary.ts';
import type { PolicyGate } from '../serve/policy-gate.ts';
import { type RecordedTurn, SessionRecorder, type TurnPlace } from '../serve/session-recorder.ts';
import { samplesOfSessions } from './external-trajectories.ts';
import type { Trainer, TrainerHooks } from './trainer.ts';

/** What a reward that completed a batch led to. */
export interface BlackBoxUpdate {
  /** RL iterations done (this one included). */
  iteration: number;
  /** The served policy's version after the update. */
  policyVersion: number;
  /** Samples trained on (one per branch of each session). */
  samples: number;
  metrics: Partial<Record<MetricName, number>>;
}

export class BlackBoxTraining {
  readonly recorder = new SessionRecorder();
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly trainer: Trainer,
    readonly gate: PolicyGate,
    private readonly hooks: TrainerHooks = {},
  ) {}

  /** Requests at the recipe's rollout settings are the policy's rollouts (the log-probs the loss expects); others (greedy evaluation) are only served. */
  records(temperature: number, topK: number): boolean {
    return temperature === this.trainer.recipe.rl.temperature && topK === this.trainer.recipe.rl.topK;
  }

  /** Refuses a session that already has its reward (SessionError), before anything is sampled for it. */
  checkOpen(sessionId: string): void {
    this.recorder.checkOpen(sessionId);
  }

  record(sessionId: string, turn: RecordedTurn): TurnPlace {
    return this.recorder.record(sessionId, turn);
  }

  /**
   * Takes a session's reward; when that completes a batch, trains on it before resolving (so the
   * client knows the next request samples the new policy). Updates run one after another.
   */
  /** The served policy's version: updates done since serving started. */
  get policyVersion(): number {
    return this.gate.version;
  }

  /** RL iterations done, the warm start's included. */
  get iteration(): number {
    return this.trainer.iteration;
  }

  reward(sessionId: string, reward: number, group?: string): Promise<BlackBoxUpdate | undefined> {
    this.recorder.reward(sessionId, reward, group);
    const run = this.turn.then(() => this.updateIfReady());
    this.turn = run.catch(() => undefined);
    return run;
  }

  private async updateIfReady(): Promise<BlackBoxUpdate | undefined> {
    const { rl } = this.trainer.recipe;
    const batch = this.recorder.takeBatch(rl.promptsPerIteration, rl.groupSize);
    if (!batch) return undefined;
    const samples = samplesOfSessions(batch, (ids) => this.trainer.tokenizer.decode(ids));
    const result = await this.gate.update(() => this.trainer.trainOnSamples(samples, this.hooks));
    return { iteration: this.trainer.iteration, policyVersion: this.gate.version, samples: samples.length, metrics: result.metrics };
  }
}

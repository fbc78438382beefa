// A test environment whose episodes last a fixed number of turns, each answered " ok ", with each
// observation arriving after `delay(seed, turn)` milliseconds: staggered tools put an episode's
// rows into different sampler calls, rows and batch sizes from one run to the next (the replay and
// KV-reuse tests). Its reward is never earned (the verifier expects "never").

import type { ActionEnding, EpisodeStart, StepOutcome } from '../environment.ts';
import { AnswerVerifier } from '../verifier.ts';

export class DelayedTurnsEnv {
  readonly name = 'delayed-turns';
  readonly verifier = new AnswerVerifier();
  private seed = 0;
  private turn = 0;
  constructor(
    private readonly turns: number,
    private readonly delay: (seed: number, turn: number) => number,
    private readonly stopStrings: readonly string[] = [],
  ) {}
  reset(seed: number): EpisodeStart {
    this.seed = seed;
    this.turn = 0;
    return { prompt: `go ${seed % 10}`, ...(this.stopStrings.length ? { stopStrings: [...this.stopStrings] } : {}), info: { expected: 'never' } };
  }
  async step(_action: string, _ending: ActionEnding): Promise<StepOutcome> {
    const wait = this.delay(this.seed, this.turn++);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return this.turn >= this.turns ? { done: true } : { done: false, observation: ' ok ' };
  }
  close(): void {}
}

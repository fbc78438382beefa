// Multi-turn rollouts with the KV cache kept across turns (core's model/cached-rows.ts) beside the
// same rollouts re-feeding every context from position 0 each turn: sampled tokens per second
// through the episode runner and the GPU sampler the trainer uses (collectRollouts, GpuSampler), on
// the bench model's layers and width at a 64-token context. 16 episodes of 8 turns, each action up
// to 3 tokens and each observation 4, so the last turn's context is ~60 tokens. The untrained
// model's tokens are the same either way (tests check it); only the work per turn differs.

import {
  AnswerVerifier,
  CharTokenizer,
  collectRollouts,
  type EpisodeRequest,
  type EpisodeStart,
  Generator,
  Gpt,
  type GptConfig,
  GpuSampler,
  type StepOutcome,
} from '@horizon/core';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection } from './section.ts';
import { describeModelShape } from './shapes.ts';
import { timeRuns } from './timing.ts';

const ROWS = 16;
const TURNS = 8;
const ACTION_TOKENS = 3;
const CONTEXT = 64;
const tokenizer = new CharTokenizer({ characters: 'abcdefgh0123 ', specialTokens: ['<eos>'] });

/** TURNS turns whatever the action, each answered with " ok ". */
class TurnsEnv {
  readonly name = 'bench-turns';
  readonly verifier = new AnswerVerifier();
  private turn = 0;
  reset(seed: number): EpisodeStart {
    this.turn = 0;
    return { prompt: `go ${seed % 1000} abc`, info: { expected: 'never' } };
  }
  step(): StepOutcome {
    this.turn++;
    return this.turn >= TURNS ? { done: true } : { done: false, observation: ' ok ' };
  }
  close(): void {}
}

/** Sampled tokens per second of ROWS episodes of TURNS turns, the median of a few runs. */
async function rolloutTokensPerSecond(model: Gpt, reuseKv: boolean, quick: boolean): Promise<number> {
  const generator = new Generator(model, { reuseKv });
  const sampler = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, 0);
  let run = 0;
  let tokens = 0;
  const limits = { contextLength: CONTEXT, maxNewTokens: ACTION_TOKENS, maxTurns: TURNS };
  try {
    const timed = await timeRuns(
      async () => {
        sampler.reseed(7, run++);
        const requests: EpisodeRequest[] = Array.from({ length: ROWS }, (_, i) => ({ env: new TurnsEnv(), seed: i, rolloutId: i, groupId: i }));
        const samples = await collectRollouts(requests, tokenizer, sampler, limits);
        tokens = samples.reduce((n, s) => n + s.actionMask.reduce((a, m) => a + m, 0), 0);
      },
      quick ? { warmup: 1, reps: 2 } : { warmup: 1, reps: 5, budgetMs: 60_000 },
    );
    return tokens / (timed.medianMs / 1000);
  } finally {
    generator.destroy();
  }
}

export const multiTurnRolloutSection: BenchSection = {
  name: 'multi-turn rollout',
  async run(ctx) {
    const config: GptConfig = { ...ctx.shape.model, vocabSize: tokenizer.vocabSize, contextLength: CONTEXT };
    const name = `multi-turn rollout ${ROWS} rows × ${TURNS} turns ${describeModelShape({ model: config, batch: ROWS })}: KV kept across turns`;
    if (!ctx.wants(name)) return [];
    const model = Gpt.init(ctx.gpu, config, 8, 'bench-multi-turn');
    try {
      ctx.progress('multi-turn rollout: re-prefilling every turn');
      const fresh = await rolloutTokensPerSecond(model, false, ctx.quick);
      ctx.progress('multi-turn rollout: KV cache kept across turns');
      const kept = await rolloutTokensPerSecond(model, true, ctx.quick);
      const row: BenchRow = makeRow(name, 'tokens/s', kept, { name: 're-prefill every turn', value: fresh });
      return [{ ...row, note: 'sampled action tokens/s through collectRollouts and GpuSampler; the peer is the same run feeding every context from 0' }];
    } finally {
      model.destroy();
    }
  },
};

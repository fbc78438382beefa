// Multi-turn rollouts through the episode runner and the GPU sampler the trainer uses
// (collectRollouts, GpuSampler), on the bench model's layers and width: sampled tokens per second.
// Two rows. (1) The KV cache kept across turns (core's model/cached-rows.ts) beside the same
// rollouts re-feeding every context from position 0 each turn, at a 64-token context: 16 episodes
// of 8 turns, each action up to 3 tokens and each observation 4, so the last turn's context is ~60
// tokens. (2) Contexts fed in prefill passes (model/prefill-chunks.ts) beside one position per
// decode step, both keeping the cache, at a 256-token context with 24-token observations (a file
// listing or a README, as HiddenTestFS returns them). The untrained model's tokens are the same
// either way (tests check it); only the work per turn differs.

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

/** The turns' shape: context length and the observation every turn gets. */
interface TurnShape {
  context: number;
  observation: string;
}
const SHORT_TURNS: TurnShape = { context: 64, observation: ' ok ' };
const LONG_OBSERVATION_TURNS: TurnShape = { context: 256, observation: ' abc 0123 def 0123 gh 01' };
const tokenizer = new CharTokenizer({ characters: 'abcdefgh0123 ', specialTokens: ['<eos>'] });

/** TURNS turns whatever the action, each answered with the same observation. */
class TurnsEnv {
  readonly name = 'bench-turns';
  readonly verifier = new AnswerVerifier();
  private turn = 0;
  constructor(private readonly observation: string) {}
  reset(seed: number): EpisodeStart {
    this.turn = 0;
    return { prompt: `go ${seed % 1000} abc`, info: { expected: 'never' } };
  }
  step(): StepOutcome {
    this.turn++;
    return this.turn >= TURNS ? { done: true } : { done: false, observation: this.observation };
  }
  close(): void {}
}

/** Sampled tokens per second of ROWS episodes of TURNS turns, the median of a few runs. */
async function rolloutTokensPerSecond(model: Gpt, turns: TurnShape, feeding: { reuseKv: boolean; prefill: boolean }, quick: boolean): Promise<number> {
  const generator = new Generator(model, feeding);
  const sampler = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, 0);
  let run = 0;
  let tokens = 0;
  const limits = { contextLength: turns.context, maxNewTokens: ACTION_TOKENS, maxTurns: TURNS };
  try {
    const timed = await timeRuns(
      async () => {
        sampler.reseed(7, run++);
        const requests: EpisodeRequest[] = Array.from({ length: ROWS }, (_, i) => ({
          env: new TurnsEnv(turns.observation),
          seed: i,
          rolloutId: i,
          groupId: i,
        }));
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
    const rows: BenchRow[] = [];
    const shortConfig: GptConfig = { ...ctx.shape.model, vocabSize: tokenizer.vocabSize, contextLength: SHORT_TURNS.context };
    const kvName = `multi-turn rollout ${ROWS} rows × ${TURNS} turns ${describeModelShape({ model: shortConfig, batch: ROWS })}: KV kept across turns`;
    if (ctx.wants(kvName)) {
      const model = Gpt.init(ctx.gpu, shortConfig, 8, 'bench-multi-turn');
      try {
        ctx.progress('multi-turn rollout: re-prefilling every turn');
        const fresh = await rolloutTokensPerSecond(model, SHORT_TURNS, { reuseKv: false, prefill: true }, ctx.quick);
        ctx.progress('multi-turn rollout: KV cache kept across turns');
        const kept = await rolloutTokensPerSecond(model, SHORT_TURNS, { reuseKv: true, prefill: true }, ctx.quick);
        const row = makeRow(kvName, 'tokens/s', kept, { name: 're-prefill every turn', value: fresh });
        rows.push({ ...row, note: 'sampled action tokens/s through collectRollouts and GpuSampler; the peer is the same run feeding every context from 0' });
      } finally {
        model.destroy();
      }
    }
    const longConfig: GptConfig = { ...ctx.shape.model, vocabSize: tokenizer.vocabSize, contextLength: LONG_OBSERVATION_TURNS.context };
    const passName = `multi-turn rollout ${ROWS} rows × ${TURNS} turns, 24-token observations ${describeModelShape({ model: longConfig, batch: ROWS })}: prefill passes`;
    if (ctx.wants(passName)) {
      const model = Gpt.init(ctx.gpu, longConfig, 8, 'bench-multi-turn-long');
      try {
        ctx.progress('multi-turn rollout: observations fed one position per step');
        const stepwise = await rolloutTokensPerSecond(model, LONG_OBSERVATION_TURNS, { reuseKv: true, prefill: false }, ctx.quick);
        ctx.progress('multi-turn rollout: observations fed in prefill passes');
        const passes = await rolloutTokensPerSecond(model, LONG_OBSERVATION_TURNS, { reuseKv: true, prefill: true }, ctx.quick);
        const row = makeRow(passName, 'tokens/s', passes, { name: 'one position per step', value: stepwise });
        rows.push({ ...row, note: 'both keep the KV cache across turns; the peer feeds each observation through one decode step per token' });
      } finally {
        model.destroy();
      }
    }
    return rows;
  },
};

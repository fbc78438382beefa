// HiddenTestFS episodes from a seeded policy on the GPU, returned as plain data: the one entry that
// Node (Dawn), Deno and the web UI's engine worker each run, so a test can require the three to
// produce the same tokens (docs/environments.md §7). Everything in it is core's own training path:
// the `hidden-ppo` preset's model and task, the Trainer's SFT warm start (the request cuts it to a
// few steps: a freshly initialised policy never wrote `<tool_call>sh …</tool_call>` in the episodes
// measured, so it would never reach the shell), then one batch of training episodes through
// collectRollouts and the GpuSampler at the recipe's temperature, each episode in a fresh sandbox
// with its own shell and the QuickJS code runner behind `run_tests` and grading. The tokens are a
// function of the seed alone: the sampler's noise is keyed by (seed, rollout id, segment, position),
// not by the call a row was sampled in. Left out: RL's scoring, advantages and policy update.

import type { Gpu } from '@horizon/kernels';
import type { ActionEnding, JsonValue } from '../envs/environment.ts';
import { collectRollouts, type EpisodeRequest } from '../envs/episode.ts';
import type { RolloutStatus } from '../envs/rollout-status.ts';
import type { ToolCallCounts } from '../envs/sample.ts';
import { Generator } from '../model/generate.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { GpuSampler } from './gpu-sampler.ts';
import { STREAM } from './rl-context.ts';
import { rolloutLimits } from './rollout-limits.ts';
import { Trainer } from './trainer.ts';

export interface HiddenTestFsEpisodesRequest {
  /** The recipe's seed: the policy's initial weights, the SFT examples, the episodes' problems and the sampler's noise. */
  seed: number;
  episodes: number;
  /** `.eval/` readable (the `hidden-hack-ppo` preset) or denied (`hidden-ppo`). */
  hackOpen: boolean;
  /** Recipe overrides as the CLI's --set takes them: the warm start's `sft.steps` (0: the freshly initialised policy), `sft.lr`, `rl.temperature`… */
  sets: readonly string[];
}

/** One episode as plain, structured-cloneable data. */
export interface HiddenTestFsEpisode {
  rolloutId: number;
  seed: number;
  status: RolloutStatus;
  reward: number;
  /** Prompt and response ids, exactly as sampled and observed. */
  tokens: number[];
  /** log π of each sampled token (0 off the action tokens), as the sampler reported it. */
  logprobs: number[];
  turns: { action: string; ending: ActionEnding; observation?: string }[];
  /** Tool calls by outcome; absent when the policy wrote none. */
  toolCalls?: ToolCallCounts;
  /** Every shell command line the `sh` tool ran: its line, exit status and file accesses. */
  calls: JsonValue;
  /** The verifier's verdict: every hidden and visible case passed. */
  correct: boolean;
}

export interface HiddenTestFsEpisodesResult {
  /** The warm start's loss after each SFT step (nats per token), to see where runtimes part if their tokens do. */
  sftLosses: number[];
  episodes: HiddenTestFsEpisode[];
}

/** Runs the warm start and `request.episodes` HiddenTestFS episodes on `gpu`; frees every buffer it made. */
export async function runHiddenTestFsEpisodes(gpu: Gpu, request: HiddenTestFsEpisodesRequest): Promise<HiddenTestFsEpisodesResult> {
  const { recipe } = resolveRecipe({
    preset: request.hackOpen ? 'hidden-hack-ppo' : 'hidden-ppo',
    sets: [`seed=${request.seed}`, ...request.sets],
  });
  const trainer = new Trainer(gpu, recipe);
  const generator = new Generator(trainer.policy);
  try {
    const sftLosses: number[] = [];
    // Stops once SFT is done, before RL starts (evaluation, the reference and critic models).
    await trainer.run({
      onMetrics: (phase, _step, metrics) => {
        if (phase === 'sft' && metrics['sft/loss'] !== undefined) sftLosses.push(metrics['sft/loss']);
      },
      shouldStop: () => trainer.sftStep >= recipe.sft.steps,
    });
    const sampler = new GpuSampler(generator, trainer.tokenizer, { temperature: recipe.rl.temperature, topK: recipe.rl.topK }, STREAM.rollout);
    sampler.reseed(recipe.seed, STREAM.rollout, 0);
    const requests: EpisodeRequest[] = Array.from({ length: request.episodes }, (_, i) => ({
      env: trainer.task.createEnv('train'),
      seed: trainer.task.trainSeed(recipe.seed, i),
      rolloutId: i,
      groupId: i,
    }));
    const samples = await collectRollouts(requests, trainer.tokenizer, sampler, rolloutLimits(recipe, 'train'));
    const episodes = samples.map(
      (s): HiddenTestFsEpisode => ({
        rolloutId: s.rolloutId,
        seed: s.seed,
        status: s.status,
        reward: s.reward,
        tokens: [...s.tokens],
        logprobs: Array.from(s.rolloutLogprobs),
        turns: s.turns.map((t) => ({ action: t.action, ending: t.ending, ...(t.observation !== undefined ? { observation: t.observation } : {}) })),
        ...(s.toolCalls ? { toolCalls: { ...s.toolCalls } } : {}),
        calls: s.meta.calls ?? [],
        correct: s.meta.correct === true,
      }),
    );
    return { sftLosses, episodes };
  } finally {
    generator.destroy();
    trainer.dispose();
  }
}

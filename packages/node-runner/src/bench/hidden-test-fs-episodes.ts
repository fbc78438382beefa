// HiddenTestFS episodes per second on the environment's side alone: 16 episodes replay the honest
// solver's plan (list, read, write the function, run_tests, revise, submit) through the episode
// runner, so every step runs the real sandbox, shell and QuickJS test runs, and the verifier grades
// in a fresh sandbox — but no model samples: each action is the plan's next line, replayed by a
// sampler that costs nothing. What it measures is the ceiling the environment sets on rollouts; the
// GPU's part is the multi-turn rollout row. Episodes run concurrently, as in training.

import {
  type BatchSampler,
  CharTokenizer,
  collectRollouts,
  demonstrationTurns,
  type Generation,
  HIDDEN_TEST_FS_VOCABULARY,
  HiddenTestFsEnv,
  hiddenProblem,
} from '@horizon/core';
import { makeRow } from './row.ts';
import type { BenchSection } from './section.ts';
import { timeRuns } from './timing.ts';

const EPISODES = 16;
const TRAIN = { minConstant: 1, maxConstant: 9 };
const PLAN = { readNotes: true, listTask: true, readTests: true, revise: true, readBack: true, check: true };
const tokenizer = new CharTokenizer(HIDDEN_TEST_FS_VOCABULARY);

/** Each episode's plan actions, replayed in order by rollout id; log-prob 0 (nothing is trained). */
function replaySampler(): BatchSampler {
  const plans = Array.from({ length: EPISODES }, (_, i) =>
    demonstrationTurns(hiddenProblem(i, TRAIN), PLAN).flatMap((t) => (t.kind === 'action' ? [t.text] : [])),
  );
  const taken = plans.map(() => 0);
  return {
    async generate(contexts, _budgets, _stops, keys) {
      return contexts.map((_, row): Generation => {
        const episode = keys?.[row]?.rolloutId ?? row;
        const ids = tokenizer.encode(plans[episode][taken[episode]++]);
        return { ids, logprobs: ids.map(() => 0), ending: 'stop' };
      });
    },
  };
}

export const hiddenTestFsEpisodesSection: BenchSection = {
  name: 'hidden-test-fs episodes',
  async run(ctx) {
    const name = `hidden-test-fs episodes ${EPISODES} concurrent, the honest plan replayed (no model): environment, sandbox and grading`;
    if (!ctx.wants(name)) return [];
    ctx.progress('hidden-test-fs episodes: replaying the honest plan');
    let completed = 0;
    const timed = await timeRuns(
      async () => {
        const requests = Array.from({ length: EPISODES }, (_, i) => ({
          env: new HiddenTestFsEnv({ problem: (s) => hiddenProblem(s, TRAIN), hackOpen: false }),
          seed: i,
          rolloutId: i,
          groupId: i,
        }));
        const samples = await collectRollouts(requests, tokenizer, replaySampler(), { contextLength: 400, maxNewTokens: 40, maxTurns: 12 });
        completed = samples.filter((s) => s.status === 'completed' && s.reward === 1).length;
      },
      ctx.quick ? { warmup: 1, reps: 2 } : { warmup: 1, reps: 5, budgetMs: 60_000 },
    );
    if (completed !== EPISODES)
      throw new Error(`hidden-test-fs bench: ${completed} of ${EPISODES} replayed episodes solved their problem; the replay is broken`);
    const row = makeRow(name, 'episodes/s', EPISODES / (timed.medianMs / 1000));
    return [{ ...row, note: 'each episode ~9 tool calls; a QuickJS run per run_tests and per grading' }];
  },
};

// A small run log written with core's own line formatters, for the browser tests only. The values
// follow simple formulas so a test can predict what the page must show; this is not a training run
// and never ships with the app (the shipped replay comes from a real `horizon train`).

import { formatHeaderLine, formatMetricsLine, formatSampleLine, type MetricsRecord, resolveRecipe, type SampleRecord } from '@horizon/core';

export const FIXTURE_STEPS = 12;

/** metrics.jsonl: SFT rows, then RL rows 0..FIXTURE_STEPS−1 (KL missing at step 3 to test gaps are not invented). */
export function fixtureMetrics(options: { nanAt?: number } = {}): { text: string; records: MetricsRecord[] } {
  // Steps 0..FIXTURE_STEPS−1 (a real run counts from 1): the header's last iteration is the last row's.
  const recipe = resolveRecipe({ preset: 'tiny', sets: [`rl.iterations=${FIXTURE_STEPS - 1}`] }).recipe;
  const records: MetricsRecord[] = [
    { phase: 'sft', step: 0, time_s: 0.5, metrics: { 'sft/loss': 2.1 } },
    { phase: 'sft', step: 1, time_s: 1, metrics: { 'sft/loss': 1.7 } },
  ];
  for (let s = 0; s < FIXTURE_STEPS; s++) {
    const metrics: MetricsRecord['metrics'] = {
      'rollout/reward': 0.1 + 0.05 * s,
      'rollout/success': 0.1 + 0.05 * s,
      'policy/entropy': 1.5 - 0.04 * s,
      'policy/clip_frac': 0.02 * (s % 4),
      'critic/value_loss': 0.3 / (1 + s),
      'critic/explained_var': -0.2 + 0.07 * s,
      'perf/tokens_per_s': 900 + 10 * s,
    };
    if (s !== 3) metrics['policy/kl'] = s === options.nanAt ? Number.NaN : 0.001 * s;
    records.push({ phase: 'rl', step: s, time_s: 2 + s, metrics });
  }
  return { text: formatHeaderLine(recipe) + records.map(formatMetricsLine).join(''), records };
}

/** samples.jsonl: two rollouts per step for the first three steps; prompt "a+b=", answer digits, <eos>. */
export function fixtureSamples(): { text: string; samples: SampleRecord[] } {
  const samples: SampleRecord[] = [];
  for (let step = 0; step < 3; step++) {
    for (let k = 0; k < 2; k++) {
      const a = 10 + step * 7 + k;
      const b = 5 + k;
      const answer = String(a + b + (k === 1 ? 1 : 0)); // the second rollout is wrong by one
      const pieces = [...`${a}+${b}=`, ...answer, '<eos>'];
      const prompt = `${a}+${b}=`.length;
      const roles = 'p'.repeat(prompt) + 'a'.repeat(pieces.length - prompt);
      const n = pieces.length;
      const reward = k === 0 ? 1 : 0;
      const advantage = pieces.map((_, i) => (i < prompt ? 0 : (k === 0 ? 1 : -1) * (0.2 + 0.1 * (i - prompt))));
      samples.push({
        phase: 'rl',
        step,
        rolloutId: step * 2 + k,
        groupId: step,
        seed: 1000 + step * 2 + k,
        prompt: `${a}+${b}=`,
        turns: [{ action: answer, ending: 'eos' }],
        reward,
        done: true,
        tokens: pieces.map((_, i) => i),
        pieces,
        roles,
        channels: {
          advantage,
          value: pieces.map((_, i) => 0.5 + 0.01 * i),
          ratio: pieces.map((_, i) => (i < prompt ? 1 : 1 + (k === 0 ? 0.05 : -0.05))),
          kl: pieces.map(() => 0.002),
        },
      });
      if (advantage.length !== n) throw new Error('fixture channels misaligned');
    }
  }
  return { text: samples.map(formatSampleLine).join(''), samples };
}

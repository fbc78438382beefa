// The host half of top_logprobs: a row of logits becomes its k most likely tokens with their
// log-softmax, most likely first, ties to the lower id. The GPU forward pass is checked against the
// sampler's own log-probs through the CLI (tests/cli/serve.test.ts).

import { describe, expect, it } from 'vitest';
import { topOfRow } from './top-logprobs.ts';

describe('topOfRow', () => {
  it('ranks log-softmax entries and breaks ties by id', () => {
    const top = topOfRow([0, 2, 1, 2], 3);
    const logZ = Math.log(1 + 2 * Math.exp(2) + Math.exp(1));
    expect(top.map((t) => t.id)).toEqual([1, 3, 2]);
    for (const t of top) expect(t.logprob).toBeCloseTo([0, 2, 1, 2][t.id] - logZ, 12);
    expect(topOfRow([5, 5], 5)).toHaveLength(2);
  });
});

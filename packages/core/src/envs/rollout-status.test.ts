// The training rule of each rollout status is written once, in STATUS_RULES; docs/environments.md
// shows the same sentences, and this keeps the two from drifting apart.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROLLOUT_STATUSES, STATUS_RULES } from './rollout-status.ts';

describe('STATUS_RULES', () => {
  it('completed and truncated train, aborted and failed do not; only completed is a true terminal', () => {
    expect(ROLLOUT_STATUSES.map((s) => [s, STATUS_RULES[s].trains, STATUS_RULES[s].terminal])).toEqual([
      ['completed', true, true],
      ['truncated', true, false],
      ['aborted', false, false],
      ['failed', false, false],
    ]);
  });

  it('docs/environments.md states each rule as the code does', () => {
    const doc = readFileSync(new URL('../../../../docs/environments.md', import.meta.url), 'utf8');
    for (const status of ROLLOUT_STATUSES) expect(doc).toContain(`| \`${status}\` | ${STATUS_RULES[status].rule} |`);
  });
});

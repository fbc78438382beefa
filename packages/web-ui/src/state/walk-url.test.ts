// The walkthroughs' settings in the URL: a round trip per kind, entries of other walkthroughs kept,
// and a malformed or foreign parameter read as the defaults with a sentence.

import { describe, expect, it } from 'vitest';
import type { GroupsRequest, PpoRequest } from '../engine/walk-api.ts';
import { formatUrlState, parseUrlState } from './url-state.ts';
import { readWalk, writeWalk } from './walk-url.ts';

const PPO: PpoRequest = { kind: 'ppo', epsLow: 0.2, epsHigh: 0.28, dualClip: 3, sign: 1 };
const GROUPS: GroupsRequest = { kind: 'groups', rewards: [1, 0, 1] };

describe('walkthrough settings in the URL', () => {
  it('round-trips through ?walk= and keeps the other walkthroughs’ entries', () => {
    const moved: PpoRequest = { ...PPO, epsHigh: 0.05, sign: -1 };
    const walk = writeWalk(writeWalk(undefined, GROUPS), moved);
    const href = formatUrlState('http://127.0.0.1/#ppo', { ...parseUrlState('http://127.0.0.1/#ppo', 'tiny'), walk });
    const back = parseUrlState(href, 'tiny').walk;
    expect(readWalk(back, PPO)).toEqual({ request: moved, problem: null });
    expect(readWalk(back, GROUPS)).toEqual({ request: GROUPS, problem: null });
  });

  it('starts from the defaults without settings, and says why for settings it cannot read', () => {
    expect(readWalk(undefined, PPO)).toEqual({ request: PPO, problem: null });
    expect(readWalk('{"groups":{"rewards":[1]}}', PPO)).toEqual({ request: PPO, problem: null });
    expect(readWalk('not json', PPO).problem).toMatch(/walk= parameter is not a JSON object/);
    const wrong = readWalk('{"ppo":{"epsLow":"wide"}}', PPO);
    expect(wrong.request).toEqual(PPO);
    expect(wrong.problem).toBe(
      'The link’s settings for the ppo walkthrough are not the ones it has (epsLow, epsHigh, dualClip, sign), so it starts from its defaults.',
    );
  });
});

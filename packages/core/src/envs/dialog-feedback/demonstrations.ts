// Scripted SFT demonstrations for the dialog-feedback environment: a whole dialogue in which the
// assistant answers every request right, recorded from the environment itself (so the user's
// replies, including a rare noisy rejection and the retry after it, are exactly what an episode of
// that seed shows). They teach the format — a number, then <eos>, after each request — and the sums;
// the SFT policy's own mistakes are what its feedback log then labels.

import { multiTurnSftExample, type SftExample, type SftTurn } from '../environment.ts';
import { type DialogConfig, DialogFeedbackEnv } from './env.ts';

export function dialogSftExample(seed: number, config: DialogConfig): SftExample {
  const env = new DialogFeedbackEnv(config);
  const turns: SftTurn[] = [{ kind: 'observation', text: env.reset(seed).prompt }];
  for (let request = env.pending; request; request = env.pending) {
    turns.push({ kind: 'action', text: request.expected, ending: 'eos' });
    const outcome = env.step(request.expected, 'eos');
    if (outcome.done) break;
    turns.push({ kind: 'observation', text: outcome.observation });
  }
  return multiTurnSftExample(turns);
}

// Trajectories an outside agent drove through `horizon serve --train` (serve/session-recorder.ts)
// as the Samples an RL iteration trains on, and the one iteration that trains on them — slime's
// black-box mode, where rollouts come from the agent rather than from Horizon's episode runner.
//
// A branch of a session becomes one Sample, exactly as recorded: its first prompt (kind `prompt`),
// then each turn's output ids with their sampling log-probs (kind `action`, trainable), and between
// two turns the tokens the agent added after the last output (kind `observation`). The session's
// reward goes on the last action token, as a verifier's would (docs/algorithms/README.md §1); the
// trajectory is complete (`done`: the agent ended it). Each posted group is a prompt group of the
// batch, so GRPO/RLOO baselines compare sessions the client said belong together.

import type { Sample } from '../envs/sample.ts';
import { SampleBuilder } from '../envs/sample.ts';
import type { RewardedSession } from '../serve/session-recorder.ts';

/** The samples of a batch of groups of rewarded sessions: row ids in order, one group id per group. */
export function samplesOfSessions(groups: readonly (readonly RewardedSession[])[], decode: (ids: readonly number[]) => string): Sample[] {
  const samples: Sample[] = [];
  for (const [groupId, sessions] of groups.entries()) {
    for (const session of sessions) {
      for (const [branchIndex, turns] of session.branches.entries()) {
        const first = turns[0];
        const builder = new SampleBuilder({ seed: 0, rolloutId: samples.length, groupId }, decode(first.promptIds), first.promptIds);
        let fed = first.promptIds.length;
        for (const [t, turn] of turns.entries()) {
          if (t > 0) {
            // The session recorder kept only turns whose prompt extends the last prompt + output.
            const added = turn.promptIds.slice(fed);
            if (added.length > 0) builder.addObservation(added, decode(added), 'observation');
          }
          builder.addAction(turn.outputIds, turn.logprobs, turn.text, turn.ending);
          fed = turn.promptIds.length + turn.outputIds.length;
        }
        // An empty completion has no token to carry a reward; with no trainable token the sample is left out of the update.
        if (builder.hasTrainableToken) builder.addReward(session.reward);
        samples.push(
          builder.finish({
            status: 'completed',
            meta: {
              session_id: session.id,
              session_group: session.group,
              branch: branchIndex,
              policy_version: Math.min(...turns.map((turn) => turn.policyVersion)),
              spans_update: turns.some((turn) => turn.spansUpdate),
            },
          }),
        );
      }
    }
  }
  return samples;
}

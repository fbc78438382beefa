// Which rollouts a group's skills come from (docs/algorithms/opid.md §2). The G rollouts of one
// prompt share its problem, so a skill extracted from one applies to all: each rollout is scored
// with its group's skills, the hindsight of its siblings, as OPID distils skills mined from the
// policy's own successful trajectories back into it.
//   global      from the group's best rollout with reward > 0 (the first on ties): a failed
//               workflow is not one to teach; none when no rollout of the group succeeded;
//   after-readme from any rollout that read the README: its arithmetic is a fact of the problem,
//               right whether or not that rollout went on to use it;
//   after-fail  from a successful rollout that revised after a failing run_tests.
// A rollout that touched a protected path (meta.hackAttempt) is never a source: with the hack path
// closed no such rollout passes, and with it open a skill from one would distil the hack.

import type { Sample } from '../../envs/sample.ts';
import { rolloutLog } from './execution-log.ts';
import { parseSkills, type Skills } from './skill-parser.ts';

/** The skills of one group of rollouts (the same prompt). */
export function groupSkills(group: readonly Pick<Sample, 'turns' | 'meta' | 'reward'>[]): Skills {
  const parsed = group.map((sample) => ({ sample, skills: parseSkills(rolloutLog(sample)) }));
  const honest = parsed.filter(({ sample }) => sample.meta.hackAttempt !== true);
  let best: (typeof parsed)[number] | undefined;
  for (const candidate of honest) if (candidate.sample.reward > 0 && (!best || candidate.sample.reward > best.sample.reward)) best = candidate;
  const steps: Skills['steps'] = {};
  const readme = parsed.find(({ skills }) => skills.steps['after-readme'] !== undefined)?.skills.steps['after-readme'];
  if (readme !== undefined) steps['after-readme'] = readme;
  const revise = honest.find(({ sample, skills }) => sample.reward > 0 && skills.steps['after-fail'] !== undefined)?.skills.steps['after-fail'];
  if (revise !== undefined) steps['after-fail'] = revise;
  const global = best?.skills.global;
  return { ...(global !== undefined ? { global } : {}), steps };
}

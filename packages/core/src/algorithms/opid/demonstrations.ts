// Skill-carrying SFT demonstrations (docs/algorithms/opid.md §5). A model trained from scratch has
// never seen skill text and ignores it, so Δ would be noise; OPID's SFT therefore teaches it to read
// skills: half the demonstrations (the odd indices) carry the skills the parser extracts from the
// demonstration's own execution log — an honest demonstration is a successful trajectory, its own
// source — placed by the same context builder the scoring pass uses. They alternate: one carries the
// global skill after the prompt, the next its step skills before its critical steps (the two
// placements `route` scores with). The even half are the task's demonstrations as they are, so the
// policy also learns to act without a skill, as it samples in RL.
// Demonstrations take up to 192 tokens and the global skill block 55, so the preset's context is 256.

import { multiTurnSftExample, type SftExample } from '../../envs/environment.ts';
import type { Task } from '../../envs/tasks.ts';
import { injectTurns } from './context-builder.ts';
import { criticalPoints } from './critical-points.ts';
import { demonstrationLog } from './execution-log.ts';
import type { Injection } from './routing.ts';
import { parseSkills } from './skill-parser.ts';

/** Which skills demonstration `index` carries: none (even), the global skill (1, 5, 9, …), or its step skills (3, 7, …). */
export function demonstrationSkillKind(index: number): 'none' | 'global' | 'steps' {
  if (index % 2 === 0) return 'none';
  return (index - 1) % 4 === 0 ? 'global' : 'steps';
}

/** The task's SFT example `index`, with skills rendered into its context for the odd indices. */
export function skillDemonstration(task: Task, runSeed: number, index: number): SftExample {
  const base = task.sftExample(runSeed, index);
  const kind = demonstrationSkillKind(index);
  if (kind === 'none' || !base.turns) return base;
  const log = demonstrationLog(base.turns);
  const skills = parseSkills(log);
  const injection: Injection =
    kind === 'global'
      ? { ...(skills.global !== undefined ? { afterPrompt: skills.global } : {}) }
      : {
          beforeSteps: [...criticalPoints(log)].flatMap(([step, point]) => {
            const text = skills.steps[point];
            return text !== undefined ? [{ step, text }] : [];
          }),
        };
  return multiTurnSftExample(injectTurns(base.turns, injection));
}

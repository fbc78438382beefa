// OPID, on-policy skill distillation, on the Algorithm seam (docs/algorithms/opid.md): GRPO whose
// per-token advantage gains coef·Δ_t, Δ_t = log π(a_t | context + skill) − log π(a_t | context),
// where the skills are mined from the policy's own rollouts (a global workflow, step skills at
// critical points) and routed per step. The policy is its own teacher: it samples without skills,
// and only the scoring pass (skill-delta.ts) sees them, so none are needed at inference.
// Models: the policy and the frozen reference (GRPO's); the policy trains on the shared clipped
// surrogate. Its SFT warm start trains on skill-carrying demonstrations for half its examples.
// What each sample records for the views: meta.opidSkills (its group's skills) and
// meta.opidRouted (per step, the skill text injected; '' where none), and the per-token Δ channel.
// Leaves out: OPID's LLM skill extractor (rules, skill-parser.ts), skills carried across prompts
// (each group's come from its own rollouts), and compaction (one context per rollout).

import type { JsonValue } from '../../envs/environment.ts';
import type { Sample } from '../../envs/sample.ts';
import type { RoutingMode } from '../../recipe/schema.ts';
import { type AdvantageInputs, type AdvantageResult, type Algorithm, maskedStats, POLICY, REFERENCE, type SampleScoreInputs } from '../algorithm.ts';
import { clippedPolicyUpdate } from '../clipped-policy.ts';
import { groupAdvantages } from '../group-baseline.ts';
import { skillAdvantages, skillDeltaStats } from './advantage.ts';
import { stepStartsOf } from './context-builder.ts';
import { criticalPoints } from './critical-points.ts';
import { skillDemonstration } from './demonstrations.ts';
import { rolloutLog } from './execution-log.ts';
import { groupSkills } from './group-skills.ts';
import { type Injection, routeSteps } from './routing.ts';
import { type SkillRollout, skillLogprobs } from './skill-delta.ts';
import type { Skills } from './skill-parser.ts';

/** Routes one rollout's steps; a rollout whose action runs are not its turns (cannot be aligned) gets the global routing only. */
export function routeRollout(
  sample: Pick<Sample, 'tokens' | 'responseStart' | 'actionMask' | 'turns' | 'meta'>,
  skills: Skills,
  mode: RoutingMode,
): SkillRollout {
  const runs = stepStartsOf(sample.actionMask).length;
  const critical = runs === sample.turns.length ? criticalPoints(rolloutLog(sample)) : new Map();
  return { tokens: sample.tokens, responseStart: sample.responseStart, actionMask: sample.actionMask, steps: routeSteps(runs, critical, skills, mode) };
}

function injectedText(injection: Injection | undefined): string {
  if (!injection) return '';
  return [injection.afterPrompt, ...(injection.beforeSteps ?? []).map((s) => s.text)].filter((t) => t !== undefined).join(' | ');
}

function skillsJson(skills: Skills): JsonValue {
  return { global: skills.global ?? null, ...skills.steps };
}

export interface OpidOptions {
  /** A group's skills from its rollouts (default: group-skills.ts); tests pass fixed skills. */
  skillsOf?: (group: readonly Sample[]) => Skills;
}

export function opidMethod(options: OpidOptions = {}): Algorithm {
  const skillsOf = options.skillsOf ?? groupSkills;
  return {
    name: 'opid',
    models: [POLICY, REFERENCE],
    scores: ['skillLogp'],
    grouped: true,

    async sampleScores({ samples, rows, scores, scorer, models, codec, recipe }: SampleScoreInputs) {
      const groups = new Map<number, Sample[]>();
      for (const sample of samples) groups.set(sample.groupId, [...(groups.get(sample.groupId) ?? []), sample]);
      const skillsOfGroup = new Map([...groups].map(([id, group]) => [id, skillsOf(group)]));
      const rollouts = samples.map((sample) => {
        const skills = skillsOfGroup.get(sample.groupId) as Skills;
        const rollout = routeRollout(sample, skills, recipe.opid.routing);
        sample.meta.opidSkills = skillsJson(skills);
        sample.meta.opidRouted = rollout.steps.map(injectedText);
        return rollout;
      });
      const policy = models.get('policy');
      if (!policy) throw new RangeError('opid scores with the policy, which the trainer did not pass');
      const { skillLogp, scored } = await skillLogprobs(rollouts, scores.oldLogp, rows.T, {
        scorer,
        policy,
        encode: (text) => codec.encode(text, { specials: false }),
        padId: codec.padId,
        temperature: recipe.rl.temperature,
        contextLength: recipe.model.contextLength,
        maxRows: rows.B,
      });
      return { skillLogp, skillScored: scored };
    },

    async advantages(inputs: AdvantageInputs): Promise<AdvantageResult> {
      const { gpu, rows, scores, recipe } = inputs;
      const { skillLogp, skillScored } = scores;
      if (!skillLogp || !skillScored) throw new Error('opid: the batch was scored without skills');
      const grpo = await groupAdvantages(inputs, 'grpo');
      const skill = { oldLogp: scores.oldLogp, skillLogp, skillScored };
      const advantages = await skillAdvantages(gpu, grpo.advantages, skill, rows.actionMask, { B: rows.B, T: rows.T, coef: recipe.opid.coef });
      const raw = maskedStats(advantages, rows.actionMask);
      const delta = skillDeltaStats(skill, rows.actionMask);
      return {
        advantages,
        returns: grpo.returns,
        metrics: {
          ...grpo.metrics,
          'rollout/advantage_mean': raw.mean,
          'rollout/advantage_std': raw.std,
          'policy/skill_delta': delta.meanDelta,
          'rollout/skill_scored_frac': delta.scoredFraction,
        },
      };
    },

    updates: ({ rl }) => [clippedPolicyUpdate(rl)],
    sftExample: skillDemonstration,
  };
}

export const opid: Algorithm = opidMethod();

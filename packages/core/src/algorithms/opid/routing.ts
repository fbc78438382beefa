// Routing (docs/algorithms/opid.md §3): which skill each step of a rollout is scored with. OPID's
// rule is `route`: a step at a highlighted critical point gets the step-level skill for that point,
// every other step the global skill. The other modes are its ablations, for measuring what each
// kind of skill contributes:
//   route        critical step with a skill for its point → that step skill; else → the global skill
//   concat       the global skill always, and at a critical step its step skill as well
//   global-only  the global skill at every step
//   step-only    the step skill at critical steps; every other step is not scored (Δ = 0)
// A step whose mode asks for a skill the group did not yield (no successful sibling: no global
// skill) is not scored either: Δ = 0 there, and the GRPO advantage alone trains it.

import type { RoutingMode } from '../../recipe/schema.ts';
import type { CriticalPoint } from './critical-points.ts';
import type { Skills } from './skill-parser.ts';

/** Skill text placed into a context: after the prompt, and before the action of given steps. */
export interface Injection {
  afterPrompt?: string;
  beforeSteps?: readonly { step: number; text: string }[];
}

/** Each step's injection (undefined: the step is scored without a skill, Δ = 0), for `steps` steps. */
export function routeSteps(steps: number, critical: ReadonlyMap<number, CriticalPoint>, skills: Skills, mode: RoutingMode): (Injection | undefined)[] {
  const global = skills.global;
  const globally: Injection | undefined = global !== undefined ? { afterPrompt: global } : undefined;
  const rules: Record<RoutingMode, (before: Injection['beforeSteps']) => Injection | undefined> = {
    route: (before) => (before ? { beforeSteps: before } : globally),
    concat: (before) => (before ? { ...globally, beforeSteps: before } : globally),
    'global-only': () => globally,
    'step-only': (before) => (before ? { beforeSteps: before } : undefined),
  };
  return Array.from({ length: steps }, (_, step) => {
    const point = critical.get(step);
    const stepSkill = point !== undefined ? skills.steps[point] : undefined;
    return rules[mode](stepSkill !== undefined ? [{ step, text: stepSkill }] : undefined);
  });
}

/** A key equal for equal injections: steps with the same key are scored in one view of their rollout. */
export function injectionKey(injection: Injection): string {
  return JSON.stringify([injection.afterPrompt ?? null, (injection.beforeSteps ?? []).map((s) => [s.step, s.text])]);
}

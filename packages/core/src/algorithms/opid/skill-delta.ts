// Δ, OPID's skill-distillation signal (docs/algorithms/opid.md §4): for every sampled action token,
// log π(token | context with the skill) − log π(token | context), the policy scored twice — once by
// the shared scoring pass (log π_old), once here on its rollouts with the routed skill injected, by
// the pass a distillation teacher scores with (Scorer.contextLogp), the policy as its own teacher.
// Skills are never sampled with: only this pass sees them.
//
// Each rollout becomes one view per distinct injection its steps are routed (routing.ts): in route
// mode, one with the global skill after the prompt for the routine steps, and one per critical step
// with that step's skill before it. A view scores only the tokens of its own steps, every one of
// them after its insertion. Views are scored in chunks of at most `maxRows` rows, at most the
// context length long, so the pass fits where the batch's own scoring fits. A view longer than the
// context is cut there: the tokens it loses keep Δ = 0 and count as unscored (rollout/skill_scored_frac).
//
// Shape legend:  B rows · T positions · R view rows of a chunk · T' a chunk's positions

import type { Gpt } from '../../model/gpt.ts';
import { trainingLength } from '../../train/rows.ts';
import type { Scorer } from '../../train/scoring.ts';
import { injectTokens, stepStartsOf } from './context-builder.ts';
import { type Injection, injectionKey } from './routing.ts';

/** One rollout to score with skills: its tokens, where the response starts, its action mask and each step's injection. */
export interface SkillRollout {
  tokens: readonly number[];
  responseStart: number;
  actionMask: ArrayLike<number>;
  /** steps[k]: the injection step k is scored with (undefined: not scored, Δ = 0); one per run of action tokens. */
  steps: readonly (Injection | undefined)[];
}

export interface SkillScoring {
  scorer: Pick<Scorer, 'contextLogp'>;
  policy: Gpt;
  /** Environment text to ids (specials off), as the episode runner encodes observations. */
  encode: (text: string) => number[];
  padId: number;
  temperature: number;
  contextLength: number;
  /** Most view rows per forward (the batch's own row count keeps the pass within what scoring needs). */
  maxRows: number;
}

export interface SkillLogprobs {
  /** [B, T] log π with the skill; baseLogp where nothing was scored. */
  skillLogp: Float32Array;
  /** [B, T] 1 where a view scored the position. */
  scored: Uint8Array;
}

interface View {
  tokens: number[];
  /** Pairs (row position b·T + t, view position t'). */
  reads: [number, number][];
}

/** The views of one rollout (row b of a [B, T] batch). */
function viewsOf(rollout: SkillRollout, b: number, T: number, scoring: SkillScoring): View[] {
  const starts = stepStartsOf(rollout.actionMask);
  if (starts.length !== rollout.steps.length)
    throw new RangeError(`a rollout has ${starts.length} runs of action tokens, but ${rollout.steps.length} steps were routed`);
  const byKey = new Map<string, { injection: Injection; steps: number[] }>();
  rollout.steps.forEach((injection, step) => {
    if (!injection) return;
    const key = injectionKey(injection);
    const entry = byKey.get(key) ?? { injection, steps: [] };
    entry.steps.push(step);
    byKey.set(key, entry);
  });
  const views: View[] = [];
  for (const { injection, steps } of byKey.values()) {
    const context = injectTokens(rollout.tokens, rollout.responseStart, starts, injection, scoring.encode);
    const length = Math.min(context.tokens.length, scoring.contextLength + 1);
    const reads: [number, number][] = [];
    for (const step of steps) {
      const end = starts[step + 1] ?? rollout.tokens.length;
      for (let p = starts[step]; p < end; p++) {
        if (!rollout.actionMask[p] || p < 1) continue;
        const moved = context.position[p];
        if (moved < length) reads.push([b * T + p - 1, moved - 1]);
      }
    }
    if (reads.length > 0) views.push({ tokens: context.tokens.slice(0, length), reads });
  }
  return views;
}

/** log π with each rollout's skills, row b from rollouts[b]; `baseLogp` ([B, T]) fills what no view scores. */
export async function skillLogprobs(rollouts: readonly SkillRollout[], baseLogp: Float32Array, T: number, scoring: SkillScoring): Promise<SkillLogprobs> {
  const skillLogp = baseLogp.slice();
  const scored = new Uint8Array(baseLogp.length);
  const views = rollouts.flatMap((rollout, b) => viewsOf(rollout, b, T, scoring));
  for (let start = 0; start < views.length; start += scoring.maxRows) {
    const chunk = views.slice(start, start + scoring.maxRows);
    const R = chunk.length;
    const Tc = trainingLength(Math.max(...chunk.map((v) => v.tokens.length)), scoring.contextLength);
    const inputs = new Uint32Array(R * Tc).fill(scoring.padId);
    const targets = new Uint32Array(R * Tc).fill(scoring.padId);
    chunk.forEach((view, r) => {
      for (let t = 0; t + 1 < view.tokens.length; t++) {
        inputs[r * Tc + t] = view.tokens[t];
        targets[r * Tc + t] = view.tokens[t + 1];
      }
    });
    const logp = await scoring.scorer.contextLogp(scoring.policy, { B: R, T: Tc, inputs, targets }, scoring.temperature);
    chunk.forEach((view, r) => {
      for (const [at, t] of view.reads) {
        skillLogp[at] = logp[r * Tc + t];
        scored[at] = 1;
      }
    });
  }
  return { skillLogp, scored };
}

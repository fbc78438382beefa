// The OPID Δ walkthrough's fixed inputs: one short HiddenTestFS-style episode (a prompt, a routine
// step, an observation, the critical step that writes f.js), the skills a successful sibling would
// give it, and the tiny model that scores it. Hand-made illustrations in the form of OPID's skills
// (docs/algorithms/opid.md §2), not parsed from a log; the page and the browser test read them here.

export const OPID_PROMPT = 'Write f.js from task/README.\n';
/** The episode after the prompt: actions (policy tokens, scored) and observations (not scored), in order. */
export const OPID_EPISODE: readonly { kind: 'action' | 'observation'; text: string }[] = [
  { kind: 'action', text: 'cat task/README\n' },
  { kind: 'observation', text: '2 -> 7\n' },
  { kind: 'action', text: "echo 'x+5'>f.js\n" },
];
/** Which action step is a critical point (after the README read: the arithmetic decides the answer). */
export const OPID_CRITICAL_STEP = 1;
export const OPID_GLOBAL_SKILL = 'cat task/README;echo expr>f.js;submit';
export const OPID_STEP_SKILL = '7-2=5 so x+5';

/** The routing switch: core's four modes (algorithms/opid/routing.ts) and no skill at all. */
export const OPID_ROUTINGS = ['route', 'concat', 'global-only', 'step-only', 'none'] as const;
export type OpidRouting = (typeof OPID_ROUTINGS)[number];

/** The scoring model: fresh weights of this shape and seed (no training: Δ shows the mechanism, not a trained policy's reading of skills). */
export const OPID_MODEL = { layers: 2, heads: 2, width: 64, contextLength: 128, seed: 7 } as const;

// The critic walkthrough's fixed inputs: four rollouts of the addition task with their outcome
// rewards, a discriminative critic's per-token values for them, and the critic outputs the presets
// type (every malformed form of core's value-digit format among them). Hand-made illustrations; the
// page and the browser test read them here.

export const GENAC_T = 4;
/** The rollouts: prompt, the answer's action tokens, the outcome reward, a value head's V_t before each token. */
export const GENAC_ROLLOUTS: readonly { prompt: string; tokens: string[]; reward: number; values: number[] }[] = [
  { prompt: '9+8=', tokens: ['1', '7', '<eos>', ''], reward: 1, values: [0.55, 0.7, 0.9, 0] },
  { prompt: '6+7=', tokens: ['1', '2', '<eos>', ''], reward: 0, values: [0.5, 0.45, 0.2, 0] },
  { prompt: '15+4=', tokens: ['1', '9', '<eos>', ''], reward: 1, values: [0.8, 0.85, 0.95, 0] },
  { prompt: '27+8=', tokens: ['3', '5', '<eos>', ''], reward: 1, values: [0.3, 0.4, 0.75, 0] },
];
/** Action tokens per rollout (the padding slot is not one). */
export const GENAC_ACTIONS = 3;

/** Critic outputs: the text before <eos> and whether it ended with <eos>. */
export type CritiqueInput = { text: string; eos: boolean };

export const GENAC_PRESETS: readonly { label: string; critiques: CritiqueInput[] }[] = [
  {
    label: 'all well-formed',
    critiques: [
      { text: 'c1=8', eos: true },
      { text: 'c1=4', eos: true },
      { text: 'c0=9', eos: true },
      { text: 'c1=5', eos: true },
    ],
  },
  {
    label: 'malformed: no <eos>, no slot, two slots, empty',
    critiques: [
      { text: 'c1=8', eos: false },
      { text: 'c1', eos: true },
      { text: 'c0=9=3', eos: true },
      { text: 'c1=', eos: true },
    ],
  },
  {
    label: 'malformed: sign, leading zero, above 10',
    critiques: [
      { text: 'c1=8', eos: true },
      { text: 'c1=-4', eos: true },
      { text: 'c0=09', eos: true },
      { text: 'c1=12', eos: true },
    ],
  },
];

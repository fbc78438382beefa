// The fixed inputs of the RL walkthroughs: small hand-made batches, chosen so that every branch of
// each objective shows up at the default controls. They are illustrations, not logged rollouts; the
// page and the browser tests both read them from here, so a test's float64 reference sees exactly
// what the kernel saw.

/** PPO: six sampled tokens of one answer; log-ratios from −0.7 to 1.2 put ρ on both sides of the clip range, and one past a dual clip of 3. */
export const PPO_TOKENS: readonly { text: string; oldLogp: number; logp: number; magnitude: number }[] = [
  { text: 'The', oldLogp: -0.6, logp: -1.3, magnitude: 1.0 },
  { text: ' sum', oldLogp: -1.1, logp: -1.35, magnitude: 0.6 },
  { text: ' is', oldLogp: -0.3, logp: -0.35, magnitude: 0.8 },
  { text: ' 1', oldLogp: -0.9, logp: -0.82, magnitude: 1.2 },
  { text: '7', oldLogp: -1.5, logp: -1.2, magnitude: 0.5 },
  { text: '<eos>', oldLogp: -2.4, logp: -1.2, magnitude: 0.9 },
];

/** The ratios the surrogate curve is drawn over. */
export const PPO_CURVE_POINTS = 81;
export const PPO_CURVE_MIN = 0.25;
export const PPO_CURVE_MAX = 3.75;

/** GRPO/RLOO: one prompt's group of completions and their default rewards (3 of 6 correct). */
export const GROUP_DEFAULT_REWARDS: readonly number[] = [1, 0, 1, 0, 0, 1];
export const GROUP_MAX = 8;

/** KTO: four completions of T = 4 tokens, ℓ − ℓ_ref per token at drift 1, and their mismatched pairs. */
export const KTO_T = 4;
export const KTO_ROWS: readonly { text: string; logRatio: number[]; mismatchedLogRatio: number[]; desirable: number }[] = [
  { text: '9+8= → 17', logRatio: [0.9, 0.6, 0.4, 0.1], mismatchedLogRatio: [0.3, -0.2, 0.4, 0.1], desirable: 1 },
  { text: '5+6= → 11', logRatio: [0.2, 0.1, -0.1, 0.0], mismatchedLogRatio: [0.5, 0.2, -0.3, 0.2], desirable: 1 },
  { text: '7+7= → 15', logRatio: [0.4, 0.5, 0.2, 0.1], mismatchedLogRatio: [0.1, 0.3, 0.2, -0.1], desirable: 0 },
  { text: '3+9= → 11', logRatio: [-0.5, -0.4, -0.2, 0.0], mismatchedLogRatio: [0.2, 0.4, 0.0, 0.1], desirable: 0 },
];
/** The reference model's log-probs the ratios sit on (the kernel takes ℓ and ℓ_ref, not their difference). */
export const KTO_REF_LOGP = -1.5;

/** Span-KTO: one assistant turn of T = 12 tokens; the first four are the prompt (no loss), polarity per token at the start. */
export const SPAN_TOKENS: readonly { text: string; logRatio: number; assistant: boolean; polarity: number }[] = [
  { text: 'Q:', logRatio: 0, assistant: false, polarity: 0 },
  { text: '9', logRatio: 0, assistant: false, polarity: 0 },
  { text: '+8', logRatio: 0, assistant: false, polarity: 0 },
  { text: '=?', logRatio: 0, assistant: false, polarity: 0 },
  { text: 'Let', logRatio: 0.1, assistant: true, polarity: 0 },
  { text: ' me', logRatio: 0.05, assistant: true, polarity: 0 },
  { text: ' add', logRatio: 0.3, assistant: true, polarity: 1 },
  { text: ' 9+8', logRatio: 0.5, assistant: true, polarity: 1 },
  { text: '=16', logRatio: 0.4, assistant: true, polarity: -1 },
  { text: ', no', logRatio: -0.2, assistant: true, polarity: 0 },
  { text: ' 17', logRatio: 0.6, assistant: true, polarity: 1 },
  { text: '<eos>', logRatio: 0.1, assistant: true, polarity: 1 },
];
export const SPAN_REF_LOGP = -1.2;

/** Distillation: two prompts of the mixed task and the student's sampled answer to each, padded to T = 3. */
export const DISTILL_T = 3;
export const DISTILL_TEACHERS = ['addition expert', 'subtraction expert'] as const;
export const DISTILL_PROMPTS: readonly {
  prompt: string;
  skill: string;
  tokens: string[];
  studentLogp: number[];
  /** Per teacher, ℓ^T of the student's tokens. */
  teacherLogp: number[][];
}[] = [
  {
    prompt: '12+7=',
    skill: 'addition',
    tokens: ['1', '9', '<eos>'],
    studentLogp: [-0.4, -1.2, -0.1],
    teacherLogp: [
      [-0.05, -0.3, -0.02],
      [-1.5, -2.3, -0.4],
    ],
  },
  {
    prompt: '15-8=',
    skill: 'subtraction',
    tokens: ['6', '<eos>'],
    studentLogp: [-0.9, -0.2],
    teacherLogp: [
      [-1.1, -0.3],
      [-3.2, -0.1],
    ],
  },
];

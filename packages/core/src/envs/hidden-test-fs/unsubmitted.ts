// How HiddenTestFS scores an episode that ended without `submit` (grading.ts): "grade" pays its f.js
// like a submitted one; "fail" pays it no task reward. A module of its own so that the recipe schema
// can name the choices without importing the verifier.

export const UNSUBMITTED_RULES = ['grade', 'fail'] as const;
export type UnsubmittedRule = (typeof UNSUBMITTED_RULES)[number];

// The on-policy distillation walkthrough's numbers, from the distillation-advantage kernel
// (docs/algorithms/distillation.md §1, slime's form with A = 0, as `rl.algorithm = distill` trains):
// k_t = ℓ^S_t − ℓ^T_t and Â_t = −λ_opd·k_t per token, no discounting. One dispatch scores every
// prompt against every teacher (B = prompts × teachers rows), so the page can show what routing
// (distill.route) picks and what the other teacher would have said. Without WebGPU the float64
// reference fills in.

import { type Gpu, opdAdvantages, opdRef } from '@horizon/kernels';
import type { DistillAnswer, DistillRequest } from './walk-api.ts';
import { DISTILL_PROMPTS, DISTILL_T, DISTILL_TEACHERS } from './walk-data.ts';

export function checkDistillRequest(r: DistillRequest): void {
  if (!(Number.isFinite(r.coef) && r.coef >= 0 && r.coef <= 10)) throw new RangeError(`distill walkthrough: coef must be in [0, 10], got ${r.coef}`);
  if (r.route.length !== DISTILL_PROMPTS.length || r.route.some((k) => !Number.isInteger(k) || k < 0 || k >= DISTILL_TEACHERS.length))
    throw new RangeError(
      `distill walkthrough: route must name a teacher (0 to ${DISTILL_TEACHERS.length - 1}) for each of the ${DISTILL_PROMPTS.length} prompts`,
    );
}

/** Rows prompt-major: row p·K + k is prompt p scored by teacher k; tokens past a prompt's answer are masked out. */
export function distillInputs() {
  const K = DISTILL_TEACHERS.length;
  const T = DISTILL_T;
  const B = DISTILL_PROMPTS.length * K;
  const studentLogp = new Float32Array(B * T);
  const teacherLogp = new Float32Array(B * T);
  const mask = new Uint32Array(B * T);
  DISTILL_PROMPTS.forEach((p, pi) => {
    for (let k = 0; k < K; k++) {
      const row = (pi * K + k) * T;
      p.tokens.forEach((_, t) => {
        studentLogp[row + t] = p.studentLogp[t];
        teacherLogp[row + t] = p.teacherLogp[k][t];
        mask[row + t] = 1;
      });
    }
  });
  return { B, T, K, studentLogp, teacherLogp, mask };
}

export async function computeDistillWalk(gpu: Gpu | null, request: DistillRequest, deviceLine: string): Promise<DistillAnswer> {
  checkDistillRequest(request);
  const started = performance.now();
  const { B, T, K, ...inputs } = distillInputs();
  const out = gpu ? await opdAdvantages(gpu, inputs, { B, T, coef: request.coef }) : opdRef(inputs, request.coef);
  return {
    request: { ...request, route: [...request.route] },
    rows: Array.from({ length: B }, (_, b) => ({
      prompt: Math.floor(b / K),
      teacher: b % K,
      reverseKl: Array.from(out.reverseKl.slice(b * T, (b + 1) * T)),
      advantages: Array.from(out.advantages.slice(b * T, (b + 1) * T)),
    })),
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}

// The GAE walkthrough's numbers: the trajectory through the real GAE kernel. One dispatch computes
// two copies of the trajectory, B = 2: row 0 with the requested λ gives A_t and R̂_t = A_t + V_t;
// row 1 with λ = 0 gives A_t = δ_t, so the δ row on screen is the kernel's too, not a page-side
// recomputation. Without a WebGPU device the float64 reference fills in and says so.
//
// Shapes: rewards, values, actionMask [2, T] (the trajectory twice); lambda [2].

import { type Gpu, gae, gaeRef } from '@horizon/kernels';
import type { GaeAnswer, GaeRequest } from './api.ts';
import { WALKTHROUGH_T, walkthroughInputs } from './trajectory.ts';

export function checkGaeRequest(request: GaeRequest): void {
  for (const key of ['gamma', 'lambda'] as const) {
    const v = request[key];
    if (!(v >= 0 && v <= 1)) throw new RangeError(`gae walkthrough: ${key} must be in [0, 1], got ${v}`);
  }
  if (request.outcome !== 0 && request.outcome !== 1) throw new RangeError(`gae walkthrough: outcome must be 0 or 1, got ${request.outcome}`);
}

const twice = <A extends Float32Array | Uint32Array>(x: A): A => {
  const out = new (x.constructor as { new (n: number): A })(2 * x.length);
  out.set(x, 0);
  out.set(x, x.length);
  return out;
};

/** The walkthrough on `gpu`, or on the float64 reference when `gpu` is null (`deviceLine` says why). */
export async function computeWalkthrough(gpu: Gpu | null, request: GaeRequest, deviceLine: string): Promise<GaeAnswer> {
  checkGaeRequest(request);
  const started = performance.now();
  const T = WALKTHROUGH_T;
  const one = walkthroughInputs(request.outcome);
  const inputs = { rewards: twice(one.rewards), values: twice(one.values), actionMask: twice(one.actionMask) };
  const lambda = [request.lambda, 0];
  let advantages: ArrayLike<number>;
  let returns: ArrayLike<number>;
  if (gpu) {
    ({ advantages, returns } = await gae(gpu, inputs, { B: 2, T, gamma: request.gamma, lambda }));
  } else {
    ({ advantages, returns } = gaeRef(inputs, { B: 2, T, gamma: request.gamma, lambda }));
  }
  return {
    request: { ...request },
    rewards: Array.from(one.rewards),
    values: Array.from(one.values),
    actionMask: Array.from(one.actionMask),
    deltas: Array.from(advantages).slice(T, 2 * T),
    advantages: Array.from(advantages).slice(0, T),
    returns: Array.from(returns).slice(0, T),
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}

// AdamW (decoupled weight decay) as one dispatch over the flat parameter buffer, with the global
// grad-norm clip folded in (llm.c's adamw.cuh pattern).
//
// Shapes:  n flat parameters (padding included), a multiple of 4
//   params, grads, m, v: [n] f32 (read as vec4: 1.85× faster than scalar on SwiftShader, 200k params)
//   flags:  [⌈n / 64⌉] u32      per 64-element block: FLAG_DECAY, FLAG_FROZEN (flags.ts)
//   step:   [8] f32             AdamWStep below, written with gpu.write before each step's submit
//                               (lr and t change every step; uniforms are content-addressed)
//   clip:   [2] f32             the grad-norm output: [norm, clipScale]; gradients are × clipScale
//
// Per element, at step t ≥ 1 with g = grad·clipScale (PyTorch's torch.optim.AdamW arithmetic):
//   p ← p·(1 − lr·wd)                          only where FLAG_DECAY
//   m ← β1·m + (1 − β1)·g,   v ← β2·v + (1 − β2)·g²
//   p ← p − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + ε)
// which is p − lr·(m̂/(√v̂ + ε) + wd·p) with m̂, v̂ the bias-corrected moments. Frozen blocks keep
// p, m and v untouched. The host folds lr, wd and the bias corrections into the step tensor in
// float64, so the shader does no pow().

import { flatIndexWgsl } from '../gpu/grid.ts';
import { FLAG_BLOCK, FLAG_DECAY, FLAG_FROZEN } from './flags.ts';

/** Floats in the step tensor, in the order of the WGSL struct AdamWStep. */
export const ADAMW_STEP_FIELDS = ['beta1', 'oneMinusBeta1', 'beta2', 'oneMinusBeta2', 'eps', 'decayFactor', 'stepSize', 'correction2Sqrt'] as const;

export const ADAMW_WGSL = /* wgsl */ `
struct AdamWStep { ${ADAMW_STEP_FIELDS.map((f) => `${f}: f32`).join(', ')} }
struct Params { n4: u32 }
@group(0) @binding(0) var<storage, read_write> params: array<vec4f>;
@group(0) @binding(1) var<storage, read> grads: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> m: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> v: array<vec4f>;
@group(0) @binding(4) var<storage, read> flags: array<u32>;
@group(0) @binding(5) var<storage, read> s: AdamWStep;
@group(0) @binding(6) var<storage, read> clip: array<f32>;
@group(0) @binding(7) var<uniform> p: Params;
${flatIndexWgsl(64)}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.n4) { return; }
  // Four elements share one flag: a block of ${FLAG_BLOCK} is ${FLAG_BLOCK / 4} vec4s.
  let f = flags[i / ${FLAG_BLOCK / 4}u];
  if ((f & ${FLAG_FROZEN}u) != 0u) { return; }
  let g = grads[i] * clip[1];
  var param = params[i];
  if ((f & ${FLAG_DECAY}u) != 0u) { param = param * s.decayFactor; }
  let mi = s.beta1 * m[i] + s.oneMinusBeta1 * g;
  let vi = s.beta2 * v[i] + s.oneMinusBeta2 * g * g;
  m[i] = mi;
  v[i] = vi;
  params[i] = param - s.stepSize * mi / (sqrt(vi) / s.correction2Sqrt + s.eps);
}
`;

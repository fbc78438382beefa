// One elementwise kernel serves both distillation modifiers (math: distill.ref.ts):
//   delta = m·q_b·(x − y),   out = m·(A + coef·delta)
// OPD: x = ℓ^S, y = ℓ^T, q = 1, coef = −λ_opd (delta is the reverse-KL sample).
// OPID: x = ℓ(·|h̃), y = ℓ(·|h), q = skill weight, coef = w (delta is Δ).
// Masked positions get 0 whatever the inputs hold there (trl#7024: padded teacher−student
// differences leaked into advantages).
//
// Shapes: advantages, x, y, delta, out [B, T] f32; mask [B, T] u32; q [B] f32.

export const DISTILL_WORKGROUP = 64;

export function distillWgsl(): string {
  return /* wgsl */ `
struct Params { N: u32, T: u32, coef: f32 }
@group(0) @binding(0) var<storage, read> advantages: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<u32>;
@group(0) @binding(4) var<storage, read> q: array<f32>;
@group(0) @binding(5) var<storage, read_write> delta: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<uniform> p: Params;

@compute @workgroup_size(${DISTILL_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * ${DISTILL_WORKGROUP}u;
  if (i >= p.N) { return; }
  if (mask[i] == 0u) {
    delta[i] = 0.0;
    out[i] = 0.0;
    return;
  }
  let d = q[i / p.T] * (x[i] - y[i]);
  delta[i] = d;
  out[i] = advantages[i] + p.coef * d;
}
`;
}

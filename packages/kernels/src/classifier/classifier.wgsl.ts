// The fused classifier: token log-probs, entropy and logsumexp of temperature-scaled logits
// (forward), and the gradient of any loss built from log-probs and entropies (backward), without
// materialising the probabilities (llm.c's fused_classifier, extended with entropy and τ).
//
// Shape legend:  N rows (B·T positions) · V vocabulary
//   logits: [N, V] f32 · targets: [N] u32
//   logp, entropy, lse: [N] f32 · dlogp, dentropy: [N] f32 · dlogits: [N, V] f32
//
// With z = logits/τ (docs/algorithms/README.md §5: training must score at the rollout's τ):
//   lse_i = log Σ_j exp(z_ij)      logp_i = z_i,target − lse_i      p_ij = exp(z_ij − lse_i)
//   H_i   = lse_i − Σ_j p_ij z_ij  = −Σ_j p_ij log p_ij
// Backward, for L with ∂L/∂logp_i = dlogp_i and ∂L/∂H_i = dentropy_i:
//   ∂L/∂logits_ij = [dlogp_i·(1[j = target_i] − p_ij) − dentropy_i·p_ij·(log p_ij + H_i)] / τ
// since ∂H/∂z_j = −p_j(log p_j + H) = −p_j(z_j − Σ_k p_k z_k), and ∂z/∂logits = 1/τ.
// Cross-entropy is −logp; its gradient is this backward with dlogp = −(row weight).
//
// Forward: one invocation per row, one pass over V with a running max m (the online logsumexp),
// carrying s = Σ e^(z−m) and w = Σ e^(z−m)·(z−m), so H = log s − w/s is a sum of two non-negative
// terms (no cancellation when the row is nearly one-hot, unlike lse − Σ p z). No workgroup memory or
// barriers (slow on SwiftShader, docs/design.md §5); any V works, at V·N/(invocations) serial steps per row.
// Backward: one invocation per logit, from the saved lse and H (log p_ij = z_ij − lse_i).
// Target ids ≥ V are clamped to V − 1 (as the embedding clamps them); the host API rejects them.

import { flatIndexWgsl } from '../gpu/grid.ts';

export const CLASSIFIER_ROW_WORKGROUP = 64;
export const CLASSIFIER_ELEMENT_WORKGROUP = 256;

const params = /* wgsl */ `struct Params { N: u32, V: u32, invTau: f32 }`;

export function classifierForwardWgsl(): string {
  return /* wgsl */ `
${params}
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<u32>;
@group(0) @binding(2) var<storage, read_write> logp: array<f32>;
@group(0) @binding(3) var<storage, read_write> entropy: array<f32>;
@group(0) @binding(4) var<storage, read_write> lse: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;
${flatIndexWgsl(CLASSIFIER_ROW_WORKGROUP)}
@compute @workgroup_size(${CLASSIFIER_ROW_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.N) { return; }
  let base = i * p.V;
  var m = logits[base] * p.invTau;
  var s = 1.0;  // Σ exp(z − m)
  var w = 0.0;  // Σ exp(z − m)·(z − m)
  for (var j = 1u; j < p.V; j++) {
    let z = logits[base + j] * p.invTau;
    if (z > m) {
      let r = exp(m - z);
      w = r * (w + s * (m - z));
      s = s * r + 1.0;
      m = z;
    } else {
      let e = exp(z - m);
      s += e;
      w += e * (z - m);
    }
  }
  let logS = log(s);
  let y = min(targets[i], p.V - 1u);
  lse[i] = m + logS;
  logp[i] = (logits[base + y] * p.invTau - m) - logS;
  entropy[i] = logS - w / s;
}
`;
}

/** `withEntropy` false drops the entropy term and its two bindings (log-prob or cross-entropy losses). */
export function classifierBackwardWgsl(withEntropy: boolean): string {
  const entropyBindings = /* wgsl */ `
@group(0) @binding(6) var<storage, read> entropy: array<f32>;
@group(0) @binding(7) var<storage, read> dentropy: array<f32>;`;
  return /* wgsl */ `
${params}
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<u32>;
@group(0) @binding(2) var<storage, read> lse: array<f32>;
@group(0) @binding(3) var<storage, read> dlogp: array<f32>;
@group(0) @binding(4) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;${withEntropy ? entropyBindings : ''}
${flatIndexWgsl(CLASSIFIER_ELEMENT_WORKGROUP)}
@compute @workgroup_size(${CLASSIFIER_ELEMENT_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.N * p.V) { return; }
  let row = i / p.V;
  let j = i % p.V;
  let logProb = logits[i] * p.invTau - lse[row];
  let prob = exp(logProb);
  let y = min(targets[row], p.V - 1u);
  var g = dlogp[row] * (select(0.0, 1.0, j == y) - prob);
  ${withEntropy ? 'g -= dentropy[row] * prob * (logProb + entropy[row]);' : ''}
  dlogits[i] = g * p.invTau;
}
`;
}

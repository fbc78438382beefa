// Sampling one token per row on the GPU, so generation reads back only token ids and log-probs,
// never logits (docs/design.md §4, after web-llm).
//
// Shape legend:  B rows (sequences) · V vocabulary
//   logits: [B, V] f32 (each sequence's last position), or [R, V] with rows: [B] u32 choosing one per b
//   counters: [B] u32 · tokens: [B] u32 · logp: [B] f32 · keys: [B, 2] u32 (keyed draws)
//
// The distribution, exactly (sample.ref.ts is the same definition in float64):
//   K = the top-k set: the k largest logits, ties broken by the lower token id (all V when k = 0 or k ≥ V)
//   π(j) = exp(logit_j/τ) / Σ_{i∈K} exp(logit_i/τ) for j ∈ K, 0 outside K
//   u = uniformFromBits(word 0 of philox4x32(counter = (counters[b], b, 0, 0), key = (seed, stream)))
//   or, keyed, counter = (counters[b], keys[b, 0], keys[b, 1], 1): the draw then names its sequence
//   by the caller's key (a rollout id and segment) instead of its row in this dispatch, so a
//   sequence draws the same whichever rows it shares a call with (word 3 keeps the two kinds apart)
//   token = the first j ∈ K, in token-id order, with Σ_{i∈K, i≤j} π(i) > u  (the last j ∈ K if rounding
//           leaves none)
//   logp = log π(token): the rollout log-prob under the τ-scaled, top-k-restricted distribution.
// τ = 0 is greedy: the lowest id among the largest logits, logp = 0 (the point mass it samples from).
// A trainer that scores actions with the full softmax(logits/τ) agrees with this logp only when top-k
// is off (docs/algorithms/README.md §5: SAO forces top-k off for well-defined importance ratios).
//
// One invocation per row, no workgroup memory (barriers are slow on SwiftShader, docs/design.md §5), a few
// passes over V: the max, the top-k threshold (one pass per distinct value above it, so at most k
// passes, none when top-k is off), the normaliser, and the CDF walk. Top-k membership compares raw
// logits, so rounding in logit/τ cannot create or break ties.

import { flatIndexWgsl } from '../gpu/grid.ts';
import { PHILOX_WGSL } from './philox.wgsl.ts';

export const SAMPLE_WORKGROUP = 64;

/**
 * `gather`: draw for row b from logits row rows[b] of an [R, V] buffer (e.g. each prompt's last
 * position after a prefill over [B·T, V]); ids past R − 1 are clamped to it.
 */
/**
 * `keyed`: draw b's Philox counter is (counters[b], keys[2b], keys[2b + 1], 1), not (counters[b], b, 0, 0).
 */
export function sampleWgsl(gather: boolean, keyed = false): string {
  return /* wgsl */ `${PHILOX_WGSL}
struct Params { B: u32, V: u32, topK: u32, invTau: f32, seed: u32, stream: u32, greedy: u32, R: u32 }
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> counters: array<u32>;
@group(0) @binding(2) var<storage, read_write> tokens: array<u32>;
@group(0) @binding(3) var<storage, read_write> logp: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;${gather ? '\n@group(0) @binding(5) var<storage, read> rows: array<u32>;' : ''}${keyed ? `\n@group(0) @binding(${gather ? 6 : 5}) var<storage, read> keys: array<u32>;` : ''}
${flatIndexWgsl(SAMPLE_WORKGROUP)}
const LOWEST: f32 = -3.4028234e38;

@compute @workgroup_size(${SAMPLE_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = flatIndex(gid, nwg);
  if (b >= p.B) { return; }
  let base = ${gather ? 'min(rows[b], p.R - 1u)' : 'b'} * p.V;

  // The largest logit and its lowest id.
  var m = logits[base];
  var best = 0u;
  for (var j = 1u; j < p.V; j++) {
    let x = logits[base + j];
    if (x > m) { m = x; best = j; }
  }
  if (p.greedy != 0u) {
    tokens[b] = best;
    logp[b] = 0.0;
    return;
  }

  // Top-k threshold θ and how many logits equal to θ are admitted (the lowest ids first).
  var theta = LOWEST;
  var tiesAdmitted = p.V;
  if (p.topK > 0u && p.topK < p.V) {
    var above = 0u;  // logits strictly greater than theta
    theta = m;
    // Each pass admits at least one logit, so k passes suffice (the bound also keeps NaN logits,
    // which equal nothing, from looping forever).
    for (var round = 0u; round < p.topK; round++) {
      var equal = 0u;
      var next = LOWEST;
      for (var j = 0u; j < p.V; j++) {
        let x = logits[base + j];
        if (x == theta) { equal++; } else if (x < theta) { next = max(next, x); }
      }
      if (above + equal >= p.topK) { tiesAdmitted = p.topK - above; break; }
      above += equal;
      theta = next;
    }
  }

  // Normaliser over the top-k set, shifted by the max.
  var total = 0.0;
  var ties = 0u;
  for (var j = 0u; j < p.V; j++) {
    let x = logits[base + j];
    if (x == theta) { ties++; }
    if (x > theta || (x == theta && ties <= tiesAdmitted)) { total += exp((x - m) * p.invTau); }
  }

  let u = uniformFromBits(philox4x32(${keyed ? 'vec4u(counters[b], keys[2u * b], keys[2u * b + 1u], 1u)' : 'vec4u(counters[b], b, 0u, 0u)'}, vec2u(p.seed, p.stream)).x);
  let goal = u * total;
  var cdf = 0.0;
  var chosen = best;
  ties = 0u;
  for (var j = 0u; j < p.V; j++) {
    let x = logits[base + j];
    if (x == theta) { ties++; }
    if (x > theta || (x == theta && ties <= tiesAdmitted)) {
      chosen = j;
      cdf += exp((x - m) * p.invTau);
      if (cdf > goal) { break; }
    }
  }
  tokens[b] = chosen;
  logp[b] = (logits[base + chosen] - m) * p.invTau - log(total);
}
`;
}

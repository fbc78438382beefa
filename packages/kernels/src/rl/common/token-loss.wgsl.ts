// The shape shared by every per-token loss kernel (policy, value, KL): one invocation per token
// computes the loss L_t and its derivative dL_t/dx_t from a few [B, T] inputs, writes
//   loss[i] = m·L_t                          (per-token values, for logging and explanations)
//   grad[i] (= or +=) coef·m·scale[b]·dL_t/dx_t   (gradient of the AGGREGATED loss: ready for backward)
// and sums, fused into the same pass (stage 1 of reduce.wgsl.ts: REDUCE_ITEMS tokens per invocation), the terms
//   [Σ m·scale·L,  flag sums…,  Σ m]          → the aggregated loss, flag counts and the token count.
// Masked positions are never read, so garbage there cannot leak (trl#7024).
//
// Shapes: inputs [B, T] f32 each; mask [B, T] u32; scales [B] f32; loss, grad [B, T] f32;
// partials [K, P] f32 with K = flags + 2.

import { partialSumsWgsl, REDUCE_WORKGROUP } from './reduce.wgsl.ts';

export interface TokenLossSpec {
  /** Names of the [B, T] f32 inputs, bound in this order from binding 0. */
  inputs: readonly string[];
  /** Names of 0/1 flags the body sets (as f32 `let` values), summed over action tokens. */
  flags: readonly string[];
  /**
   * WGSL run for one action token i: reads `inputs[i]` and the hyperparameters `p.h0 … p.h3`, and
   * defines `value` (L_t), `dvalue` (dL_t/dx_t) and every flag in `flags`.
   */
  body: string;
  /** Extra WGSL functions the body calls. */
  helpers?: string;
  /** `grad += …` instead of `grad = …` (to add a KL term into a policy gradient already written). */
  accumulate?: boolean;
}

export function tokenLossWgsl(spec: TokenLossSpec): string {
  const k = spec.inputs.length;
  const terms = spec.flags.length + 2;
  const inputs = spec.inputs.map((name, j) => `@group(0) @binding(${j}) var<storage, read> ${name}: array<f32>;`).join('\n');
  const flagTerms = spec.flags.map((f, j) => `acc[${j + 1}] += ${f};`).join(' ');
  const gradWrite = spec.accumulate ? 'grad[i] += p.coef * w * dvalue;' : 'grad[i] = p.coef * w * dvalue;';
  const maskedGrad = spec.accumulate ? '' : 'grad[i] = 0.0;';
  return /* wgsl */ `
struct Params { N: u32, T: u32, coef: f32, h0: f32, h1: f32, h2: f32, h3: f32 }
${inputs}
@group(0) @binding(${k}) var<storage, read> mask: array<u32>;
@group(0) @binding(${k + 1}) var<storage, read> scales: array<f32>;
@group(0) @binding(${k + 2}) var<storage, read_write> loss: array<f32>;
@group(0) @binding(${k + 3}) var<storage, read_write> grad: array<f32>;
@group(0) @binding(${k + 4}) var<storage, read_write> partials: array<f32>;
@group(0) @binding(${k + 5}) var<uniform> p: Params;
${partialSumsWgsl(terms)}
${spec.helpers ?? ''}
@compute @workgroup_size(${REDUCE_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var acc: array<f32, ${terms}>;
  for (var c = 0u; c < ITEMS; c++) {
    let i = elementIndex(wid, nwg, lid, c);
    if (i >= p.N) { break; }
    if (mask[i] == 0u) {
      loss[i] = 0.0;
      ${maskedGrad}
      continue;
    }
    let w = scales[i / p.T];
${spec.body}
    loss[i] = value;
    ${gradWrite}
    acc[0] += w * value;
    ${flagTerms}
    acc[${terms - 1}] += 1.0;
  }
  writePartials(&acc, wid, nwg, lid);
}
`;
}

/** Number of summed terms for a spec: the loss, each flag, the token count. */
export function tokenLossTerms(spec: Pick<TokenLossSpec, 'flags'>): number {
  return spec.flags.length + 2;
}

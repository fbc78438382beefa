// Kernels that drive token-by-token generation without reading anything back between steps.
//
// Shape legend:  B rows · Tmax context length · D width · V vocabulary
//
// Every row advances one position per step, each from its own position p = pos[b] (rows whose
// leading positions are already in the KV cache start further on): prompts of different lengths are
// fed by teacher forcing (the row's next input is its prompt token while p + 1 < its prompt length,
// else the token just sampled), so one dispatch sequence serves a ragged batch and the host reads the
// sampled history once at the end (docs/design.md §5: readback is the latency floor).
//
//   decode embedding:  x[b, :] = wte[input[b], :] + wpe[pos[b], :]          (ids ≥ V embed as zero)
//   advance:           p = pos[b];  history[b, p] = sampled[b];  historyLogp[b, p] = logp[b]  (p < Tmax)
//                      input[b] = p + 1 < promptLen[b] ? prompt[b, p + 1] : sampled[b]
//                      pos[b] = p + 1
//   stop check:        p = pos[b] (before advance);  if p + 1 ≥ promptLen[b] and sampled[b] is one of
//                      stops[b, 0 … K − 1]:  ended[b] = 1   (a draw that fills a position past the
//                      prompt is an action token; padding entries 0xffffffff match no id)
// A row done before the others keeps stepping; past the context its draws are not stored (the KV
// write and the embedding already skip or clamp positions ≥ Tmax). The host reads `ended` between
// chunks of steps to end a call once every row has stopped (model/generate.ts).

import { flatIndexWgsl } from '../gpu/grid.ts';

export const GENERATION_WORKGROUP = 64;

export function decodeEmbeddingWgsl(): string {
  return /* wgsl */ `
struct Params { B: u32, D: u32, V: u32, Tmax: u32 }
@group(0) @binding(0) var<storage, read> input: array<u32>;      // [B]
@group(0) @binding(1) var<storage, read> pos: array<u32>;        // [B]
@group(0) @binding(2) var<storage, read> wte: array<f32>;        // [V, D]
@group(0) @binding(3) var<storage, read> wpe: array<f32>;        // [Tmax, D]
@group(0) @binding(4) var<storage, read_write> x: array<f32>;    // [B, D]
@group(0) @binding(5) var<uniform> p: Params;
${flatIndexWgsl(GENERATION_WORKGROUP)}
@compute @workgroup_size(${GENERATION_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.B * p.D) { return; }
  let b = i / p.D;
  let d = i % p.D;
  let token = input[b];
  let t = min(pos[b], p.Tmax - 1u);
  var tokenPart = 0.0;
  if (token < p.V) { tokenPart = wte[token * p.D + d]; }
  x[i] = tokenPart + wpe[t * p.D + d];
}
`;
}

export function advanceWgsl(): string {
  return /* wgsl */ `
struct Params { B: u32, Tmax: u32 }
@group(0) @binding(0) var<storage, read> sampled: array<u32>;            // [B]
@group(0) @binding(1) var<storage, read> logp: array<f32>;               // [B]
@group(0) @binding(2) var<storage, read> prompt: array<u32>;             // [B, Tmax]
@group(0) @binding(3) var<storage, read> promptLen: array<u32>;          // [B]
@group(0) @binding(4) var<storage, read_write> history: array<u32>;      // [B, Tmax]
@group(0) @binding(5) var<storage, read_write> historyLogp: array<f32>;  // [B, Tmax]
@group(0) @binding(6) var<storage, read_write> input: array<u32>;        // [B]
@group(0) @binding(7) var<storage, read_write> pos: array<u32>;          // [B]
@group(0) @binding(8) var<uniform> p: Params;
${flatIndexWgsl(GENERATION_WORKGROUP)}
@compute @workgroup_size(${GENERATION_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = flatIndex(gid, nwg);
  if (b >= p.B) { return; }
  let at = pos[b];
  if (at < p.Tmax) {
    history[b * p.Tmax + at] = sampled[b];
    historyLogp[b * p.Tmax + at] = logp[b];
  }
  let next = at + 1u;
  if (next < promptLen[b] && next < p.Tmax) {
    input[b] = prompt[b * p.Tmax + next];
  } else {
    input[b] = sampled[b];
  }
  pos[b] = next;
}
`;
}

export function stopCheckWgsl(): string {
  return /* wgsl */ `
struct Params { B: u32, K: u32 }
@group(0) @binding(0) var<storage, read> sampled: array<u32>;        // [B]
@group(0) @binding(1) var<storage, read> pos: array<u32>;            // [B], this step's positions
@group(0) @binding(2) var<storage, read> promptLen: array<u32>;      // [B]
@group(0) @binding(3) var<storage, read> stops: array<u32>;          // [B, K]
@group(0) @binding(4) var<storage, read_write> ended: array<u32>;    // [B]
@group(0) @binding(5) var<uniform> p: Params;
${flatIndexWgsl(GENERATION_WORKGROUP)}
@compute @workgroup_size(${GENERATION_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = flatIndex(gid, nwg);
  if (b >= p.B) { return; }
  if (pos[b] + 1u < promptLen[b]) { return; }
  let token = sampled[b];
  for (var k = 0u; k < p.K; k++) {
    if (stops[b * p.K + k] == token) { ended[b] = 1u; }
  }
}
`;
}

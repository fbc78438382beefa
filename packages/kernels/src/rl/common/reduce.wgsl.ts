// Deterministic sums without float atomics (WGSL has none), in two stages:
//   stage 1 — fused into an elementwise kernel: each invocation walks REDUCE_ITEMS elements (strided
//             by the workgroup size, so neighbouring invocations touch neighbouring elements) and
//             keeps one running sum per term; it writes partials[k, invocation]. No workgroup memory
//             and no barriers: on SwiftShader a 256-wide shared-memory tree in every workgroup made
//             the PPO loss over 64×512 tokens take 276 ms; this form takes a few ms (see the report).
//   stage 2 — `finalSumsWgsl`: one invocation per term sums that term's P partials serially, in four
//             interleaved lanes. A 256-wide workgroup tree here cost 0.8 ms per call on SwiftShader
//             (eight workgroupBarriers) against ~0.05 ms serial at P = 64 (docs/experiments.md).
// The order of additions depends only on the sizes, so a sum is bit-identical run to run on one
// device (docs/design.md §5: "reductions are trees, deterministic on a given device").
//
// Shapes: partials [K, P] f32 (P = invocations of stage 1), out [K] f32 at an element offset.

/** Invocations per workgroup of every stage-1 kernel. */
export const REDUCE_WORKGROUP = 64;
/** Elements each stage-1 invocation handles. */
export const REDUCE_ITEMS = 16;

/**
 * WGSL for stage 1. A kernel declares `partials` (read_write f32 array), keeps
 * `var acc: array<f32, TERMS>;`, loops `for (var c = 0u; c < ITEMS; c++)` over
 * `let i = elementIndex(wid, nwg, lid, c);` (break once i ≥ N), and ends with
 * `writePartials(&acc, wid, nwg, lid);`.
 */
export function partialSumsWgsl(terms: number): string {
  return /* wgsl */ `
const WG = ${REDUCE_WORKGROUP}u;
const ITEMS = ${REDUCE_ITEMS}u;
const TERMS = ${terms}u;

fn elementIndex(wid: vec3u, nwg: vec3u, lid: u32, c: u32) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG * ITEMS + c * WG + lid;
}

fn writePartials(acc: ptr<function, array<f32, ${terms}>>, wid: vec3u, nwg: vec3u, lid: u32) {
  let P = nwg.x * nwg.y * WG;
  let j = (wid.x + wid.y * nwg.x) * WG + lid;
  for (var k = 0u; k < TERMS; k++) { partials[k * P + j] = (*acc)[k]; }
}
`;
}

/** Stage 2: workgroup k sums partials[k, 0..P) into out[offset + k]. */
export function finalSumsWgsl(): string {
  return /* wgsl */ `
struct Params { P: u32, offset: u32 }
@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3u) {
  let k = wid.x;
  // Four interleaved running sums, combined in a fixed order: the same additions every run.
  var s = vec4f(0.0);
  let base = k * p.P;
  var j = 0u;
  for (; j + 3u < p.P; j += 4u) {
    s += vec4f(partials[base + j], partials[base + j + 1u], partials[base + j + 2u], partials[base + j + 3u]);
  }
  for (; j < p.P; j++) { s.x += partials[base + j]; }
  out[p.offset + k] = (s.x + s.y) + (s.z + s.w);
}
`;
}

// Deterministic sums without float atomics (WGSL has none), in two stages:
//   stage 1 — fused into an elementwise kernel: each workgroup of REDUCE_WORKGROUP invocations sums
//             its K per-element terms with a shared-memory tree and writes partials[k, workgroup];
//   stage 2 — `finalSumsWgsl`: one workgroup per term sums that term's P partials into out[k].
// The order of additions depends only on the sizes, so a sum is bit-identical run to run on one
// device (DESIGN.md "reductions are trees, deterministic on a given device").
//
// Shapes: partials [K, P] f32 (P = workgroups of stage 1), out [K] f32 at an element offset.

/** Invocations per workgroup for every kernel that reduces (one element per invocation in stage 1). */
export const REDUCE_WORKGROUP = 256;

/**
 * WGSL for stage 1: `red` holds K rows of REDUCE_WORKGROUP values; after each invocation stores its
 * terms in `red[k * WG + lid]`, every invocation of the workgroup calls `treeSum(lid)` (it holds
 * barriers, so it must sit in uniform control flow: no early `return` before it), and then
 * `red[k * WG]` holds the workgroup's sum of term k. Also defines `flatIndex` and `workgroupIndex`
 * for 2-D dispatches of 1-D ranges.
 */
export function treeSumWgsl(terms: number): string {
  const wg = REDUCE_WORKGROUP;
  return /* wgsl */ `
const WG = ${wg}u;
const TERMS = ${terms}u;
var<workgroup> red: array<f32, ${terms * wg}>;

fn treeSum(lid: u32) {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    workgroupBarrier();
    if (lid < stride) {
      for (var k = 0u; k < TERMS; k++) { red[k * WG + lid] += red[k * WG + lid + stride]; }
    }
  }
  workgroupBarrier();
}

fn workgroupIndex(wid: vec3u, nwg: vec3u) -> u32 { return wid.x + wid.y * nwg.x; }
fn flatIndex(wid: vec3u, nwg: vec3u, lid: u32) -> u32 { return workgroupIndex(wid, nwg) * WG + lid; }

/** Invocation 0 writes the workgroup's sums to partials[k * P + workgroup]. */
fn writePartials(lid: u32, wid: vec3u, nwg: vec3u) {
  if (lid == 0u) {
    let P = nwg.x * nwg.y;
    let w = workgroupIndex(wid, nwg);
    for (var k = 0u; k < TERMS; k++) { partials[k * P + w] = red[k * WG]; }
  }
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
const WG = ${REDUCE_WORKGROUP}u;
var<workgroup> red: array<f32, ${REDUCE_WORKGROUP}>;

@compute @workgroup_size(${REDUCE_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u) {
  let k = wid.x;
  var s = 0.0;
  for (var j = lid; j < p.P; j += WG) { s += partials[k * p.P + j]; }
  red[lid] = s;
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    workgroupBarrier();
    if (lid < stride) { red[lid] += red[lid + stride]; }
  }
  if (lid == 0u) { out[p.offset + k] = red[0]; }
}
`;
}

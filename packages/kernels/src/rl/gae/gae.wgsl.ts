// Token-level GAE kernels (math and conventions in gae.ref.ts). Two forms of the same recursion:
//
//   'loop' — one invocation per sequence walks t = T−1 … 0 (docs/algorithms/ppo-gae.md §2.6: enough for T ≤ 512).
//   'scan' — one workgroup of SCAN_WORKGROUP invocations per sequence, each owning a contiguous chunk
//            of ⌈T/64⌉ tokens (slime's chunked form, with the skip-observation state carried):
//     1. each invocation folds its chunk, walking backwards, into an affine summary of how the chunk
//        maps the state entering from the right (next action's A, A_critic and V, pending observation
//        reward) to the state leaving on the left: A_first = K + P·X with X = carry + γ·V_next + γλ·A_next;
//     2. invocation 0 walks the 64 summaries right to left and stores each chunk's incoming state;
//     3. every invocation replays its chunk from its incoming state and writes A and R̂.
//     Depth 2·⌈T/64⌉ + 64 instead of T. Observation values are never read in either form.
//
// Shapes: rewards, values [B, T] f32; mask [B, T] u32; bootstrap [B] f32; lambdas [B, 2] f32
// (λ, λ_critic); info [B, 2] u32 (terminal flag, tokensAfter); advantages, returns [B, T] f32.

export type GaeVariant = 'loop' | 'scan';

export const GAE_LOOP_WORKGROUP = 64;
export const SCAN_WORKGROUP = 64;

const COMMON = /* wgsl */ `
struct Params { B: u32, T: u32, gamma: f32 }
@group(0) @binding(0) var<storage, read> rewards: array<f32>;
@group(0) @binding(1) var<storage, read> values: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read> bootstrap: array<f32>;
@group(0) @binding(4) var<storage, read> lambdas: array<f32>;
@group(0) @binding(5) var<storage, read> info: array<u32>;
@group(0) @binding(6) var<storage, read_write> advantages: array<f32>;
@group(0) @binding(7) var<storage, read_write> returns: array<f32>;
@group(0) @binding(8) var<uniform> p: Params;

// x^n by repeated squaring: exact for x = 0 or 1, log2(n) roundings otherwise (pow() is undefined at 0).
fn powInt(x: f32, n: u32) -> f32 {
  var result = 1.0;
  var base = x;
  var e = n;
  loop {
    if (e == 0u) { break; }
    if ((e & 1u) == 1u) { result *= base; }
    base *= base;
    e = e >> 1u;
  }
  return result;
}

struct State { a: f32, ac: f32, v: f32, carry: f32 }

// Walks tokens [start, end) of row b backwards from state s, writing A and R̂; returns the state
// leaving on the left. The same code serves both forms, so they differ only in how s is found.
fn replay(b: u32, start: u32, end: u32, s0: State, gl: f32, glc: f32, factor: f32) -> State {
  var s = s0;
  var t = end;
  while (t > start) {
    t -= 1u;
    let i = b * p.T + t;
    if (mask[i] == 0u) {
      s.carry += rewards[i];
      advantages[i] = 0.0;
      returns[i] = 0.0;
      continue;
    }
    let v = values[i];
    let delta = rewards[i] + s.carry + p.gamma * s.v - v;
    let a = delta + gl * s.a;
    let ac = delta + glc * s.ac;
    advantages[i] = factor * a;
    returns[i] = ac + v;
    s = State(a, ac, v, 0.0);
  }
  return s;
}

fn initialState(b: u32) -> State {
  var v = bootstrap[b];
  if (info[2u * b] == 1u) { v = 0.0; }
  return State(0.0, 0.0, v, 0.0);
}
`;

export function gaeWgsl(variant: GaeVariant): string {
  return variant === 'loop' ? loopWgsl() : scanWgsl();
}

function loopWgsl(): string {
  return /* wgsl */ `${COMMON}
@compute @workgroup_size(${GAE_LOOP_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = gid.x + gid.y * nwg.x * ${GAE_LOOP_WORKGROUP}u;
  if (b >= p.B) { return; }
  let gl = p.gamma * lambdas[2u * b];
  let glc = p.gamma * lambdas[2u * b + 1u];
  let factor = powInt(gl, info[2u * b + 1u]);
  _ = replay(b, 0u, p.T, initialState(b), gl, glc, factor);
}
`;
}

function scanWgsl(): string {
  const n = SCAN_WORKGROUP;
  return /* wgsl */ `${COMMON}
const SWG = ${n}u;
// Chunk summaries (phase 1) and incoming states (phase 2), one slot per invocation.
var<workgroup> hasAction: array<u32, ${n}>;
var<workgroup> kA: array<f32, ${n}>;
var<workgroup> pA: array<f32, ${n}>;
var<workgroup> kC: array<f32, ${n}>;
var<workgroup> pC: array<f32, ${n}>;
var<workgroup> vFirst: array<f32, ${n}>;
var<workgroup> carryLeft: array<f32, ${n}>;
var<workgroup> incoming: array<State, ${n}>;

@compute @workgroup_size(${n})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = wid.x + wid.y * nwg.x;
  if (b >= p.B) { return; } // uniform across the workgroup
  let gl = p.gamma * lambdas[2u * b];
  let glc = p.gamma * lambdas[2u * b + 1u];
  let L = (p.T + SWG - 1u) / SWG;
  let start = min(lid * L, p.T);
  let end = min(start + L, p.T);

  // Phase 1: A of the chunk's first action = k + P·X, X = carry_in + γ·V_in + γλ·A_in (same for critic).
  var has = false;
  var k = 0.0; var pp = 1.0; var kc = 0.0; var pc = 1.0;
  var vNext = 0.0;
  var s = 0.0; // observation reward waiting for an action on its left
  var t = end;
  while (t > start) {
    t -= 1u;
    let i = b * p.T + t;
    if (mask[i] == 0u) { s += rewards[i]; continue; }
    let v = values[i];
    if (!has) {
      k = rewards[i] + s - v;
      kc = k;
      has = true;
    } else {
      let own = rewards[i] + s + p.gamma * vNext - v;
      k = own + gl * k;
      pp = gl * pp;
      kc = own + glc * kc;
      pc = glc * pc;
    }
    vNext = v;
    s = 0.0;
  }
  hasAction[lid] = select(0u, 1u, has);
  kA[lid] = k; pA[lid] = pp; kC[lid] = kc; pC[lid] = pc;
  vFirst[lid] = vNext;
  carryLeft[lid] = s;
  workgroupBarrier();

  // Phase 2: propagate the state right to left across chunk boundaries.
  if (lid == 0u) {
    var st = initialState(b);
    for (var j = i32(SWG) - 1; j >= 0; j--) {
      incoming[j] = st;
      if (hasAction[j] == 1u) {
        let base = st.carry + p.gamma * st.v;
        st = State(kA[j] + pA[j] * (base + gl * st.a), kC[j] + pC[j] * (base + glc * st.ac), vFirst[j], carryLeft[j]);
      } else {
        st.carry += carryLeft[j];
      }
    }
  }
  workgroupBarrier();

  // Phase 3: replay the chunk from its true incoming state.
  _ = replay(b, start, end, incoming[lid], gl, glc, powInt(gl, info[2u * b + 1u]));
}
`;
}

// Group baselines, one invocation per sample: each scans all N samples for its group (N is a few
// hundred outcome rewards, so O(N²) is cheaper than a sort; docs/algorithms/grpo.md §1). Statistics are taken
// relative to the group's first member, so identical rewards give d = 0 exactly and advantage 0
// (no f32 std residue, NeMo-RL #1518). Every member walks the same j order, so all members of a
// group share bit-identical statistics.
//
// Shapes: rewards [N] f32, groups [N] u32, advantages [N] f32; broadcast: mask [B, T] u32,
// sampleAdvantages [B] f32, tokenAdvantages [B, T] f32.

export const GROUP_WORKGROUP = 64;

/** Estimator codes in the uniform. */
export const GROUP_ESTIMATOR_CODE = { grpo: 0, 'dr-grpo': 1, rloo: 2 } as const;

export function groupBaselinesWgsl(): string {
  return /* wgsl */ `
struct Params { N: u32, estimator: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> rewards: array<f32>;
@group(0) @binding(1) var<storage, read> groups: array<u32>;
@group(0) @binding(2) var<storage, read_write> advantages: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(${GROUP_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * ${GROUP_WORKGROUP}u;
  if (i >= p.N) { return; }
  let g = groups[i];
  var n = 0.0;
  var first = 0.0;
  var sum = 0.0;
  for (var j = 0u; j < p.N; j++) {
    if (groups[j] != g) { continue; }
    if (n == 0.0) { first = rewards[j]; }
    sum += rewards[j] - first;
    n += 1.0;
  }
  if (n < 2.0) { advantages[i] = 0.0; return; }
  let mean = sum / n;
  let centred = (rewards[i] - first) - mean;
  if (p.estimator == 1u) { advantages[i] = centred; return; }
  if (p.estimator == 2u) { advantages[i] = n / (n - 1.0) * centred; return; }
  var squares = 0.0;
  for (var j = 0u; j < p.N; j++) {
    if (groups[j] != g) { continue; }
    let d = (rewards[j] - first) - mean;
    squares += d * d;
  }
  advantages[i] = centred / (sqrt(squares / (n - 1.0)) + p.eps);
}
`;
}

export function broadcastWgsl(): string {
  return /* wgsl */ `
struct Params { N: u32, T: u32 }
@group(0) @binding(0) var<storage, read> sampleAdvantages: array<f32>;
@group(0) @binding(1) var<storage, read> mask: array<u32>;
@group(0) @binding(2) var<storage, read_write> tokenAdvantages: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(${GROUP_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * ${GROUP_WORKGROUP}u;
  if (i >= p.N) { return; }
  tokenAdvantages[i] = select(0.0, sampleAdvantages[i / p.T], mask[i] != 0u);
}
`;
}

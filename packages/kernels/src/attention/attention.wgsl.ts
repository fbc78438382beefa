// Causal multi-head attention with a fused softmax, forward and backward, llm.c style: the forward
// saves the probabilities and the backward reads them.
//
// Shape legend:  B batch · T tokens · H heads · hd head width · D = H·hd · C3 = 3D
//   qkv:  [B, T, 3D] f32   q | k | v; head h of each at columns h·hd … (h+1)·hd
//   out:  [B, T, D]  f32   heads concatenated
//   att:  [B, H, T, T] f32 probabilities; row t holds P[t, 0..t], zeros past t (the causal mask)
//
// Forward, per (b, h, t):  S[t, j] = (q_t · k_j)/√hd for j ≤ t;  P[t, ·] = softmax(S[t, ·]);
//                          out_t = Σ_j P[t, j] v_j
// Backward, from dout:     dP[t, j] = dout_t · v_j;   dS[t, j] = P[t, j]·(dP[t, j] − Σ_j' P[t, j']·dP[t, j'])
//                          dq_t = Σ_j dS[t, j] k_j/√hd;   dk_j = Σ_t dS[t, j] q_t/√hd;   dv_j = Σ_t P[t, j] dout_t
//
// Why materialised probabilities rather than a flash-style per-row logsumexp: the backward with only
// the logsumexp must recompute q·k in both of its passes (the dq pass and the dk/dv pass, since WGSL
// has no float atomics and a key's gradient sums over queries), 7 hd-length dot-product sweeps over
// the causal triangle instead of 4. At T ≤ 256 the [B, H, T, T] buffer is at most a few MB, and the
// 4-sweep backward needs no barrier: every kernel here is one invocation per row, no workgroup memory
// (barriers cost ~10× on SwiftShader, docs/design.md §5).
//
// The head width is baked into the source and each per-row vector is unrolled into ⌈hd/4⌉ vec4
// registers (loaded as vec4 when hd is a multiple of 4, else component by component with zeros past
// hd). Against private arrays indexed in loops this cut forward+backward on SwiftShader from 54 to
// 12 ms (B=8, T=64, D=64, H=4, median of 30 runs, 2-core machine under load; 33 → 11 ms best-of-30;
// tools/bench/attention-timing.ts), about 1.1 GFLOP/s, the register-blocked matmul's rate.
//
// Masking: the loops stop at the diagonal, so masked scores never enter the softmax; the running max
// starts at the finite sentinel −3e38 (never −Inf, which WGSL may assume away).

import { flatIndexWgsl } from '../gpu/grid.ts';

export const ATTENTION_WORKGROUP = 64;

/**
 * How a head's hd floats map onto vec4 registers. With hd % 4 == 0 every head offset is a multiple
 * of 4, so the [B, T, ·] buffers are bound as array<vec4f> and offsets count vec4s.
 */
export class HeadVectors {
  readonly n4: number;
  readonly vec: boolean;
  readonly regs: number[];

  constructor(readonly hd: number) {
    this.n4 = Math.ceil(hd / 4);
    this.vec = hd % 4 === 0;
    this.regs = [...Array(this.n4).keys()];
  }

  /** Element type for buffers laid out in heads ([B, T, 3D], [B, T, D], the KV cache). */
  get element(): string {
    return this.vec ? 'vec4f' : 'f32';
  }

  /** WGSL divisor turning an element offset into an index of `element`. */
  get unit(): string {
    return this.vec ? '4u' : '1u';
  }

  /** Register i of the head vector starting at `base` (an index of `element`). */
  load(array: string, base: string, i: number): string {
    if (this.vec) return `${array}[${base} + ${i}u]`;
    const c = [0, 1, 2, 3].map((k) => (4 * i + k < this.hd ? `${array}[${base} + ${4 * i + k}u]` : '0.0'));
    return `vec4f(${c.join(', ')})`;
  }

  store(array: string, base: string, i: number, value: string): string {
    if (this.vec) return `${array}[${base} + ${i}u] = ${value};`;
    return [0, 1, 2, 3]
      .filter((k) => 4 * i + k < this.hd)
      .map((k) => `${array}[${base} + ${4 * i + k}u] = (${value})[${k}];`)
      .join(' ');
  }

  /** One statement per register, with `i` substituted. */
  each(fn: (i: number) => string, indent = '  '): string {
    return this.regs.map((i) => indent + fn(i)).join('\n');
  }

  dot(a: string, bArray: string, bBase: string): string {
    return this.regs.map((i) => `dot(${a}${i}, ${this.load(bArray, bBase, i)})`).join(' + ');
  }
}

const header = (hv: HeadVectors) => /* wgsl */ `
struct Params { B: u32, H: u32, T: u32, scale: f32 }
const HD: u32 = ${hv.hd}u;
const NEG_SENTINEL: f32 = -3.0e38;
${flatIndexWgsl(ATTENTION_WORKGROUP)}`;

// Index arithmetic shared by all three kernels: row = (b·H + h)·T + t. Offsets of the [B, T, ·]
// buffers are in units of the bound element (vec4f or f32).
const rowPrelude = (hv: HeadVectors) => /* wgsl */ `
  let row = flatIndex(gid, nwg);
  if (row >= p.B * p.H * p.T) { return; }
  let T = p.T;
  let D = p.H * HD;
  let C3 = 3u * D;
  let t = row % T;
  let bh = row / T;
  let h = bh % p.H;
  let seq = (bh / p.H) * T;              // flat index of this sequence's token 0
  let stride3 = C3 / ${hv.unit};          // one token in qkv
  let strideD = D / ${hv.unit};           // one token in out / dout
  let qOff = (seq * C3 + h * HD) / ${hv.unit};  // q of token j at qOff + j·stride3
  let kOff = qOff + strideD;              // k of token j at kOff + j·stride3
  let vOff = kOff + strideD;              // v of token j at vOff + j·stride3
  let gOff = (seq * D + h * HD) / ${hv.unit};   // out/dout of token j at gOff + j·strideD
  let a0 = row * T;                       // att row t of (b, h)
`;

const entry = /* wgsl */ `@compute @workgroup_size(${ATTENTION_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {`;

/** Forward: writes out and att. */
export function attentionForwardWgsl(hd: number): string {
  const hv = new HeadVectors(hd);
  return /* wgsl */ `${header(hv)}
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read_write> out: array<${hv.element}>;
@group(0) @binding(2) var<storage, read_write> att: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

${entry}
${rowPrelude(hv)}
  let qt = qOff + t * stride3;
${hv.each((i) => `let q${i} = ${hv.load('qkv', 'qt', i)} * p.scale;`)}
  var m = NEG_SENTINEL;
  for (var j = 0u; j <= t; j++) {
    let k = kOff + j * stride3;
    let s = ${hv.dot('q', 'qkv', 'k')};
    att[a0 + j] = s;
    m = max(m, s);
  }
  var sum = 0.0;
  for (var j = 0u; j <= t; j++) {
    let e = exp(att[a0 + j] - m);
    att[a0 + j] = e;
    sum += e;
  }
  let inv = 1.0 / sum;
${hv.each((i) => `var acc${i} = vec4f(0.0);`)}
  for (var j = 0u; j <= t; j++) {
    let pr = att[a0 + j] * inv;
    att[a0 + j] = pr;
    let v = vOff + j * stride3;
${hv.each((i) => `acc${i} += pr * ${hv.load('qkv', 'v', i)};`, '    ')}
  }
  for (var j = t + 1u; j < T; j++) { att[a0 + j] = 0.0; }
  let o = gOff + t * strideD;
${hv.each((i) => hv.store('out', 'o', i, `acc${i}`))}
}
`;
}

/**
 * Backward, pass 1 of 2, one invocation per query row: dS (pre-scaled by 1/√hd) into `dscores`
 * (the scratch [B, H, T, T]; entries past the diagonal are left untouched) and dq into dqkv.
 */
export function attentionBackwardQueryWgsl(hd: number): string {
  const hv = new HeadVectors(hd);
  return /* wgsl */ `${header(hv)}
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read> att: array<f32>;
@group(0) @binding(2) var<storage, read> dout: array<${hv.element}>;
@group(0) @binding(3) var<storage, read_write> dscores: array<f32>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<${hv.element}>;
@group(0) @binding(5) var<uniform> p: Params;

${entry}
${rowPrelude(hv)}
  let gt = gOff + t * strideD;
${hv.each((i) => `let g${i} = ${hv.load('dout', 'gt', i)};`)}
  var pdp = 0.0;  // Σ_j P[t, j]·dP[t, j]
  for (var j = 0u; j <= t; j++) {
    let v = vOff + j * stride3;
    let dp = ${hv.dot('g', 'qkv', 'v')};
    dscores[a0 + j] = dp;
    pdp += att[a0 + j] * dp;
  }
${hv.each((i) => `var dq${i} = vec4f(0.0);`)}
  for (var j = 0u; j <= t; j++) {
    let ds = att[a0 + j] * (dscores[a0 + j] - pdp) * p.scale;
    dscores[a0 + j] = ds;
    let k = kOff + j * stride3;
${hv.each((i) => `dq${i} += ds * ${hv.load('qkv', 'k', i)};`, '    ')}
  }
  let o = qOff + t * stride3;
${hv.each((i) => hv.store('dqkv', 'o', i, `dq${i}`))}
}
`;
}

/** Backward, pass 2 of 2, one invocation per key row j: dk and dv, summing over queries t ≥ j. */
export function attentionBackwardKeyWgsl(hd: number): string {
  const hv = new HeadVectors(hd);
  return /* wgsl */ `${header(hv)}
@group(0) @binding(0) var<storage, read> qkv: array<${hv.element}>;
@group(0) @binding(1) var<storage, read> att: array<f32>;
@group(0) @binding(2) var<storage, read> dout: array<${hv.element}>;
@group(0) @binding(3) var<storage, read> dscores: array<f32>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<${hv.element}>;
@group(0) @binding(5) var<uniform> p: Params;

${entry}
${rowPrelude(hv)}
  let j = t;                 // this invocation's key
  let col = bh * T * T + j;  // att[b, h, tq, j] at col + tq·T
${hv.each((i) => `var dk${i} = vec4f(0.0);`)}
${hv.each((i) => `var dv${i} = vec4f(0.0);`)}
  for (var tq = j; tq < T; tq++) {
    let ds = dscores[col + tq * T];
    let pr = att[col + tq * T];
    let q = qOff + tq * stride3;
    let g = gOff + tq * strideD;
${hv.each((i) => `dk${i} += ds * ${hv.load('qkv', 'q', i)};`, '    ')}
${hv.each((i) => `dv${i} += pr * ${hv.load('dout', 'g', i)};`, '    ')}
  }
  let ok = kOff + j * stride3;
  let ov = vOff + j * stride3;
${hv.each((i) => hv.store('dqkv', 'ok', i, `dk${i}`))}
${hv.each((i) => hv.store('dqkv', 'ov', i, `dv${i}`))}
}
`;
}

// GELU, tanh approximation (GPT-2), forward beside backward.
//
// Shapes:  n elements (B·T·4D in the MLP)
//   x, out, dout, dinp: [n] f32
//
//   u        = √(2/π)·(x + 0.044715·x³)
//   gelu(x)  = ½·x·(1 + tanh u)
//   gelu'(x) = ½·(1 + tanh u) + ½·x·(1 − tanh² u)·√(2/π)·(1 + 3·0.044715·x²)
//   backward: dinp = dout·gelu'(x)          (overwrites dinp; the MLP's hidden gradient is fresh)
//
// u is clamped to ±15 before tanh: tanh(15) is 1 in f32, and some WGSL implementations compute
// tanh from exp, which overflows to Inf/Inf = NaN for large arguments (|x| ≳ 10 makes u ≳ 44).
// Past the clamp the backward takes sech² u = 0: otherwise a tanh one ulp short of ±1 leaves
// 1 − tanh² ≈ 1.2e-7, which the x³ factor turns into a slope of thousands at |x| = 1e4.
//
// With n % 4 == 0 each invocation takes a vec4: 2.5× faster on SwiftShader (256×256 forward,
// 1.52 → 0.61 ms); the same source serves both, with T = f32 or vec4f.

import { flatIndexWgsl } from '../gpu/grid.ts';

/**
 * GELU's value and slope as WGSL functions of one element type, shared by the GELU kernels and the
 * matmul epilogues that fuse them (matmul.wgsl.ts), so a fused and an unfused MLP run one formula.
 */
export function geluFunctionsWgsl(type: 'f32' | 'vec4f'): string {
  return /* wgsl */ `
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const GELU_C: f32 = 0.044715;
const U_CLAMP: f32 = 15.0;
fn geluU(x: ${type}) -> ${type} {
  return SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
}
fn geluValue(v: ${type}) -> ${type} {
  return 0.5 * v * (1.0 + tanh(clamp(geluU(v), ${type}(-U_CLAMP), ${type}(U_CLAMP))));
}
fn geluSlope(v: ${type}) -> ${type} {
  let u = geluU(v);
  let t = tanh(clamp(u, ${type}(-U_CLAMP), ${type}(U_CLAMP)));
  let sech2 = select(1.0 - t * t, ${type}(0.0), abs(u) >= ${type}(U_CLAMP));
  return 0.5 * (1.0 + t) + 0.5 * v * sech2 * SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_C * v * v);
}`;
}

function common(vec4: boolean): string {
  const T = vec4 ? 'vec4f' : 'f32';
  return /* wgsl */ `
alias T = ${T};
struct Params { count: u32 }
${geluFunctionsWgsl(T)}
${flatIndexWgsl(64)}`;
}

const ENTRY = `@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  if (i >= p.count) { return; }`;

export function geluForwardWgsl(vec4: boolean): string {
  return /* wgsl */ `${common(vec4)}
@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<uniform> p: Params;

${ENTRY}
  out[i] = geluValue(x[i]);
}
`;
}

export function geluBackwardWgsl(vec4: boolean): string {
  return /* wgsl */ `${common(vec4)}
@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read> dout: array<T>;
@group(0) @binding(2) var<storage, read_write> dinp: array<T>;
@group(0) @binding(3) var<uniform> p: Params;

${ENTRY}
  dinp[i] = dout[i] * geluSlope(x[i]);
}
`;
}

// How fast a register-blocked matmul's inner loop can run on this device at all, with every excuse
// removed: the loop of our vec4 nn kernel (R rows × 4G columns of C per invocation, one vec4 of A
// per row and 4G/4·4 vec4s of B per step of 4 k's) over operands that sit in a 16 KiB buffer (L1),
// no edge clamps, no stores in the loop, a grid that fills every core. Three variants per blocking:
//   loop        the inner loop as the kernel runs it: loads from storage + multiply-adds
//   no loads    the same multiply-adds on operands loaded once before the loop (registers only):
//               what the accumulators alone cost, spills included
//   loads only  the same loads summed into one vec4: what feeding the loop alone costs
//   broadcast   the loop with A shared through the subgroup: the 4 lanes of a SwiftShader SIMD
//               group need the same rows of A (as in the kernel, where 4 neighbouring invocations
//               share row0), so each loads R/4 of them and subgroupBroadcast hands them round
// Against the FMA ceiling of `pnpm bench` (4 vec4 chains, nothing else live) this says which part
// of a matmul SwiftShader's code generator makes slow. Not a test; the numbers feed
// docs/experiments.md. Every kernel's output is checked against the same arithmetic on the host.
//
//   npx tsx tools/bench/inner-loop-ceiling.ts [--trips 512] [--workgroups 64]

import { parseArgs } from 'node:util';
import type { Tensor } from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';
import { timeGpu } from '@horizon/node-runner/bench/timing';

const { values } = parseArgs({ options: { trips: { type: 'string', default: '512' }, workgroups: { type: 'string', default: '64' } } });
const TRIPS = Number(values.trips);
const WORKGROUPS = Number(values.workgroups);
const WG = 64;
/** Operand buffers: 1024 vec4 = 16 KiB each, indices masked into them. */
const OPERAND_VEC4 = 1024;

type Variant = 'loop' | 'no loads' | 'loads only' | 'broadcast';
const BLOCKINGS: [number, number][] = [
  [1, 1],
  [2, 1],
  [4, 1],
  [4, 2],
  [8, 1],
  [8, 2],
  [8, 4],
  [16, 2],
];

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const lines = (n: number, f: (i: number) => string) => range(n).map(f).join('\n');

/** WGSL for R rows × G vec4 column groups; `inv` is the invocation's global index. */
function kernel(R: number, G: number, variant: Variant): string {
  // Rows of A depend on inv / 4: the four invocations of one SIMD group share them.
  const aIndex = (i: string, k: string) => `((inv / 4u) * ${R}u + ${i} + ${k} * 7u) & ${OPERAND_VEC4 - 1}u`;
  const Q = R / 4;
  const aLoads = (k: string) =>
    variant === 'broadcast'
      ? [
          ...range(Q).map((q) => `    let mine${q} = a[${aIndex(`lane * ${Q}u + ${q}u`, k)}];`),
          ...range(R).map((i) => `    let a${i} = subgroupBroadcast(mine${i % Q}, ${Math.floor(i / Q)}u);`),
        ]
      : range(R).map((i) => `    let a${i} = a[${aIndex(`${i}u`, k)}];`);
  const load = (k: string) =>
    [
      ...aLoads(k),
      ...range(4).flatMap((s) => range(G).map((g) => `    let b${s}_${g} = b[(${k} * ${4 * G}u + ${s * G + g}u + inv) & ${OPERAND_VEC4 - 1}u];`)),
    ].join('\n');
  const fma = lines(R, (i) => lines(G, (g) => `    acc${i}_${g} += a${i}.x * b0_${g} + a${i}.y * b1_${g} + a${i}.z * b2_${g} + a${i}.w * b3_${g};`));
  const sumLoads = `    acc0_0 += ${[...range(R).map((i) => `a${i}`), ...range(4).flatMap((s) => range(G).map((g) => `b${s}_${g}`))].join(' + ')};`;
  const body =
    variant === 'loop' || variant === 'broadcast'
      ? `  for (var k = 0u; k < p.trips; k++) {\n${load('k')}\n${fma}\n  }`
      : variant === 'no loads'
        ? `${load('0u').replaceAll('    let', '  let')}\n  for (var k = 0u; k < p.trips; k++) {\n${fma}\n  }`
        : `  for (var k = 0u; k < p.trips; k++) {\n${load('k')}\n${sumLoads}\n  }`;
  const accs = variant === 'loads only' ? '  var acc0_0 = vec4f(0.0);' : lines(R, (i) => lines(G, (g) => `  var acc${i}_${g} = vec4f(0.0);`));
  const total =
    variant === 'loads only'
      ? 'acc0_0'
      : range(R)
          .flatMap((i) => range(G).map((g) => `acc${i}_${g}`))
          .join(' + ');
  return /* wgsl */ `${variant === 'broadcast' ? 'enable subgroups;' : ''}
struct Params { trips: u32 }
@group(0) @binding(0) var<storage, read> a: array<vec4f>;
@group(0) @binding(1) var<storage, read> b: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4f>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3u${variant === 'broadcast' ? ', @builtin(subgroup_invocation_id) lane: u32' : ''}) {
  let inv = gid.x;
${accs}
${body}
  out[inv] = ${total};
}`;
}

/** The same arithmetic in float64 for invocation `inv` (sums of small values: f32 agrees to ~1e-5 relative). */
function expected(R: number, G: number, variant: Variant, inv: number, a: Float32Array, b: Float32Array): number[] {
  const mask = OPERAND_VEC4 - 1;
  const vec = (x: Float32Array, i: number) => [0, 1, 2, 3].map((c) => x[4 * (i & mask) + c]);
  const out = [0, 0, 0, 0];
  for (let k = 0; k < TRIPS; k++) {
    const kk = variant === 'no loads' ? 0 : k;
    const av = range(R).map((i) => vec(a, Math.floor(inv / 4) * R + i + kk * 7));
    const bv = range(4).map((s) => range(G).map((g) => vec(b, kk * 4 * G + s * G + g + inv)));
    for (let c = 0; c < 4; c++) {
      if (variant === 'loads only') {
        out[c] += av.reduce((t, v) => t + v[c], 0) + bv.flat().reduce((t, v) => t + v[c], 0);
      } else {
        for (let i = 0; i < R; i++)
          for (let g = 0; g < G; g++) out[c] += av[i][0] * bv[0][g][c] + av[i][1] * bv[1][g][c] + av[i][2] * bv[2][g][c] + av[i][3] * bv[3][g][c];
      }
    }
  }
  return out;
}

// The product's device: it asks for `subgroups` wherever the adapter offers them (open-device.ts).
const gpu = await acquireNodeGpu();
if (!gpu.device.features.has('subgroups')) throw new Error('inner-loop-ceiling: this device offers no subgroups, which the broadcast variant needs');
const operand = (seed: number) => Float32Array.from({ length: 4 * OPERAND_VEC4 }, (_, i) => (((i * 37 + seed) % 101) - 50) / 5000);
const aHost = operand(1);
const bHost = operand(2);
const a = gpu.upload(aHost, [4 * OPERAND_VEC4]);
const b = gpu.upload(bHost, [4 * OPERAND_VEC4]);
const invocations = WORKGROUPS * WG;
const out: Tensor = gpu.tensor([4 * invocations]);
const params = gpu.uniform([TRIPS]);
console.log(`inner loop of the vec4 nn matmul, ${invocations} invocations × ${TRIPS} steps of 4 k's, operands in 16 KiB buffers`);
console.log('blocking  accumulators  loads/step  loop GFLOP/s   no loads GFLOP/s   loads only Gfloat/s   broadcast GFLOP/s');
for (const [R, cols4] of BLOCKINGS) {
  const G = cols4;
  const figures: Record<Variant, number> = { loop: 0, 'no loads': 0, 'loads only': 0, broadcast: Number.NaN };
  for (const variant of ['loop', 'no loads', 'loads only', 'broadcast'] as Variant[]) {
    if (variant === 'broadcast' && R % 4 !== 0) continue;
    const pipeline = gpu.pipeline(kernel(R, G, variant), 'main', `inner_${R}x${4 * G}_${variant}`);
    const { minMs: ms } = await timeGpu(gpu, (rec) => rec.dispatch(pipeline, [a, b, out, params], WORKGROUPS), { warmup: 1, reps: 5 });
    const got = await gpu.read(out);
    for (const inv of [0, 1, invocations - 1]) {
      const want = expected(R, G, variant, inv, aHost, bHost);
      for (let c = 0; c < 4; c++) {
        if (!(Math.abs(got[4 * inv + c] - want[c]) <= 1e-4 * Math.max(1, Math.abs(want[c])))) {
          throw new Error(`${R}×${4 * G} ${variant}: invocation ${inv} lane ${c} holds ${got[4 * inv + c]}, expected ${want[c]}`);
        }
      }
    }
    const steps = invocations * TRIPS;
    const floatsLoaded = 4 * (R + 4 * G);
    figures[variant] = variant === 'loads only' ? (steps * floatsLoaded) / ms / 1e6 : (steps * R * G * 4 * 4 * 2) / ms / 1e6;
  }
  console.log(
    `${`${R}×${4 * G}`.padEnd(9)} ${String(4 * R * G).padStart(12)}  ${String(4 * (R + 4 * G)).padStart(10)}  ${figures.loop.toFixed(2).padStart(12)}  ${figures['no loads'].toFixed(2).padStart(17)}  ${figures['loads only'].toFixed(2).padStart(19)}  ${Number.isNaN(figures.broadcast) ? '—'.padStart(18) : figures.broadcast.toFixed(2).padStart(18)}`,
  );
}
gpu.destroyDevice();
process.exit(0);

// The device's own limits, measured in the same run as everything else, so every figure in the
// report can be read as a fraction of what this device can do at all:
//   bandwidth  a large buffer-to-buffer copy (the driver's copy path) and a trivial vec4 copy kernel;
//              bytes counted once read and once written
//   compute    a kernel of independent vec4 FMA chains held in registers (no memory traffic): the
//              most f32 arithmetic a shader reaches on this device
// A matmul's ceiling is then the roofline min(compute, intensity × bandwidth), where intensity is
// its FLOPs over the bytes it must move at least once (A, B and C). A ceiling is the best the device
// did, so these rows take the fastest timed run, not the median.
// SwiftShader runs shader loops with per-lane masks and pays per invocation, so the FMA probe needs
// long unrolled loops: on this 2-core machine (2026-11-30, other tests running) 8 chains with one
// step per trip reached 1.6–4.3 GFLOP/s, below our matmul's 4.2; 4 chains × 16 unrolled steps over
// 4096 workgroups reached 3–6 GFLOP/s at 4–16 trips and 12–13 at 64; 16 workgroups × 4096 trips
// reached 13–15. So the probe grows its loop first (to 4096 trips) and its grid after (what a big
// GPU needs to fill its cores).
//
// Shape legend: n elements (f32) · W workgroups · trips loop trips per invocation (FMA_UNROLL steps each)

import { ceilDiv, type Gpu, type Recorder, type Tensor } from '@horizon/kernels';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection, Ceilings } from './section.ts';
import { calibrate, type TimingOptions, timeGpu } from './timing.ts';

export type { Ceilings } from './section.ts';

export interface CeilingOptions {
  quick: boolean;
}

/** Bytes per copied buffer: large enough to leave the CPU caches' fast levels on SwiftShader. */
const COPY_BYTES = { quick: 64 * 2 ** 20, full: 256 * 2 ** 20 };
/** Each probe is grown until one run takes this long, so launch overhead stays a small part of it. */
const TARGET_MS = { quick: 30, full: 100 };
const TIMING: TimingOptions = { warmup: 1, reps: 5, budgetMs: 2_000 };

const COPY_WORKGROUP = 256;
const FMA_WORKGROUP = 64;
/** The probe starts at 16 workgroups × 256 trips and doubles trips up to 4096, then workgroups up to 32 768. */
const FMA_GRID = { firstWorkgroups: 16, firstTrips: 256, maxTrips: 4096, maxWorkgroups: 32_768 };
const FMA_CHAINS = 4;
/** Steps of every chain per loop trip. */
const FMA_UNROLL = 16;
const FMA_MUL = 0.999;
const FMA_ADD = 0.001;

export async function benchCeilings(gpu: Gpu, options: CeilingOptions): Promise<{ rows: BenchRow[]; ceilings: Ceilings }> {
  const bytes = options.quick ? COPY_BYTES.quick : COPY_BYTES.full;
  const target = options.quick ? TARGET_MS.quick : TARGET_MS.full;
  const mib = `${bytes / 2 ** 20} MiB`;
  const copy = await copyBandwidth(gpu, bytes, target);
  const kernel = await copyKernelBandwidth(gpu, bytes, target);
  const fma = await fmaPeak(gpu, target);
  const rows = [
    makeRow(`ceiling: buffer copy ${mib} (read+write)`, 'GB/s', copy),
    makeRow(`ceiling: vec4 copy kernel ${mib} (read+write)`, 'GB/s', kernel),
    makeRow(`ceiling: f32 FMA kernel (${FMA_CHAINS} vec4 chains × ${FMA_UNROLL} steps per loop trip)`, 'GFLOP/s', fma),
  ];
  return { rows, ceilings: { bandwidthGBs: Math.max(copy, kernel), computeGflops: fma } };
}

/**
 * Runs first and always (about 3 s quick, 12 s full on SwiftShader): other sections read
 * `ctx.ceilings` for their fractions even when `--only` hides these rows.
 */
export const ceilingSection: BenchSection = {
  name: 'device ceilings',
  async run(ctx) {
    const { rows, ceilings } = await benchCeilings(ctx.gpu, { quick: ctx.quick });
    ctx.ceilings = ceilings;
    return rows;
  },
};

/** The roofline for work of `flops` that must move `bytes` at least once. */
export function rooflineGflops(ceilings: Ceilings, flops: number, bytes: number): number {
  return Math.min(ceilings.computeGflops, (flops / bytes) * ceilings.bandwidthGBs);
}

async function copyBandwidth(gpu: Gpu, bytes: number, targetMs: number): Promise<number> {
  const n = bytes / 4;
  // src, dst: [n] f32
  const src = gpu.upload(pattern(n), [n], 'ceiling.src');
  const dst = gpu.tensor([n], 'f32', 'ceiling.dst');
  try {
    const record = (repeat: number) => (rec: Recorder) => {
      for (let i = 0; i < repeat; i++) rec.copy(src, dst);
    };
    const repeat = await calibrate(async (r) => (await timeGpu(gpu, record(r), { warmup: 0, reps: 1 })).medianMs, targetMs, 256);
    await expectCopied(gpu, dst, n, 'buffer copy');
    const { minMs } = await timeGpu(gpu, record(repeat), TIMING);
    return (2 * bytes * repeat) / (minMs / 1000) / 1e9;
  } finally {
    gpu.destroy(src);
    gpu.destroy(dst);
  }
}

const COPY_KERNEL = /* wgsl */ `
struct Params { n4: u32, rowGroups: u32 }
@group(0) @binding(0) var<storage, read> src: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4f>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(${COPY_WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * p.rowGroups + wid.x) * ${COPY_WORKGROUP}u + lid;
  if (i < p.n4) { dst[i] = src[i]; }
}`;

async function copyKernelBandwidth(gpu: Gpu, bytes: number, targetMs: number): Promise<number> {
  const n = bytes / 4;
  const n4 = n / 4;
  // src, dst: [n] f32, read as [n/4] vec4
  const src = gpu.upload(pattern(n), [n], 'ceiling.src');
  const dst = gpu.tensor([n], 'f32', 'ceiling.dst');
  try {
    const pipeline = gpu.pipeline(COPY_KERNEL, 'main', 'ceiling_copy');
    // A 2-D grid: 256 MiB is 65 536 workgroups, one more than a dimension may hold.
    const groups = ceilDiv(n4, COPY_WORKGROUP);
    const rowGroups = Math.min(groups, gpu.device.limits.maxComputeWorkgroupsPerDimension);
    const params = gpu.uniform([n4, rowGroups]);
    const record = (repeat: number) => (rec: Recorder) => {
      for (let i = 0; i < repeat; i++) rec.dispatch(pipeline, [src, dst, params], rowGroups, ceilDiv(groups, rowGroups));
    };
    const repeat = await calibrate(async (r) => (await timeGpu(gpu, record(r), { warmup: 0, reps: 1 })).medianMs, targetMs, 256);
    await expectCopied(gpu, dst, n, 'copy kernel');
    const { minMs } = await timeGpu(gpu, record(repeat), TIMING);
    return (2 * bytes * repeat) / (minMs / 1000) / 1e9;
  } finally {
    gpu.destroy(src);
    gpu.destroy(dst);
  }
}

/** Chain j, lane l of invocation g starts at seed(g) + 0.04·j + 0.01·l and runs x ← x·0.999 + 0.001 (a contraction towards 1). */
const FMA_KERNEL = /* wgsl */ `
struct Params { trips: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;
@compute @workgroup_size(${FMA_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let s = f32(gid.x % 64u) * 0.001;
  let lanes = vec4f(0.0, 0.01, 0.02, 0.03);
${Array.from({ length: FMA_CHAINS }, (_, j) => `  var x${j} = vec4f(s + ${(0.04 * j).toFixed(2)}) + lanes;`).join('\n')}
  let m = vec4f(${FMA_MUL});
  let c = vec4f(${FMA_ADD});
  for (var i = 0u; i < p.trips; i++) {
${Array.from({ length: FMA_UNROLL }, () => Array.from({ length: FMA_CHAINS }, (_, j) => `    x${j} = fma(x${j}, m, c);`).join('\n')).join('\n')}
  }
  let sum = ${Array.from({ length: FMA_CHAINS }, (_, j) => `x${j}`).join(' + ')};
  out[gid.x] = sum.x + sum.y + sum.z + sum.w;
}`;

async function fmaPeak(gpu: Gpu, targetMs: number): Promise<number> {
  const { firstWorkgroups, firstTrips, maxTrips, maxWorkgroups } = FMA_GRID;
  const tripSteps = maxTrips / firstTrips;
  const size = (scale: number) => ({
    trips: firstTrips * Math.min(scale, tripSteps),
    workgroups: firstWorkgroups * Math.max(1, scale / tripSteps),
  });
  // out: [maxWorkgroups · 64] f32, one checksum per invocation
  const out = gpu.tensor([maxWorkgroups * FMA_WORKGROUP], 'f32', 'ceiling.fma');
  try {
    const pipeline = gpu.pipeline(FMA_KERNEL, 'main', 'ceiling_fma');
    const record = (scale: number) => (rec: Recorder) => {
      const { trips, workgroups } = size(scale);
      rec.dispatch(pipeline, [out, gpu.uniform([trips])], workgroups);
    };
    const maxScale = tripSteps * (maxWorkgroups / firstWorkgroups);
    const scale = await calibrate(async (s) => (await timeGpu(gpu, record(s), { warmup: 0, reps: 1 })).medianMs, targetMs, maxScale);
    const { minMs } = await timeGpu(gpu, record(scale), TIMING);
    const { trips, workgroups } = size(scale);
    await expectFmaResult(gpu, out, workgroups * FMA_WORKGROUP, trips * FMA_UNROLL);
    const flops = workgroups * FMA_WORKGROUP * trips * FMA_UNROLL * FMA_CHAINS * 4 * 2;
    return flops / (minMs / 1000) / 1e9;
  } finally {
    gpu.destroy(out);
  }
}

/** Validate before trusting a time: every chain really took `iterations` steps (a skipped loop would leave the start values). */
async function expectFmaResult(gpu: Gpu, out: Tensor, invocations: number, iterations: number): Promise<void> {
  const got = await gpu.read(out);
  const decay = FMA_MUL ** iterations;
  for (const g of [0, 1, 63, invocations - 1]) {
    let expected = 0;
    for (let j = 0; j < FMA_CHAINS; j++) {
      for (let l = 0; l < 4; l++) expected += 1 - (1 - ((g % 64) * 0.001 + 0.04 * j + 0.01 * l)) * decay;
    }
    if (!(Math.abs(got[g] - expected) < 0.05)) {
      throw new Error(`ceiling FMA kernel: invocation ${g} holds ${got[g]}, expected ${expected.toFixed(4)} after ${iterations} iterations`);
    }
  }
}

async function expectCopied(gpu: Gpu, dst: Tensor, n: number, what: string): Promise<void> {
  const got = await gpu.read(dst);
  for (const i of [0, 1, n >> 1, n - 1]) {
    if (got[i] !== i % 1024) throw new Error(`ceiling ${what}: element ${i} holds ${got[i]}, expected ${i % 1024}`);
  }
}

function pattern(n: number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = i % 1024;
  return a;
}

// Matmul rows: our register-blocked kernel (packages/kernels/src/matmul, whatever it is today) in the
// three layouts at the model's shapes and at n³, beside tfjs and jax-js (512³ only) on the same
// device and PyTorch on the CPU, each with its roofline ceiling (ceilings.ts). Every result is checked on sampled entries
// against a float64 dot product before its time is reported, so a broken kernel variant (ours or a
// peer's) fails the bench instead of winning it.
//
// Shape legend: C[M, N] = op(A) · op(B) with inner size K; layouts as in matmul.wgsl.ts

import { type Gpu, recordMatmul, SeededRandom } from '@horizon/kernels';
import { rooflineGflops } from './ceilings.ts';
import { type JaxPeer, jaxPeer } from './peers/jax.ts';
import type { TfjsPeer } from './peers/tfjs.ts';
import { type BenchRow, makeRow, type PeerFigure, withCeiling } from './row.ts';
import type { BenchSection } from './section.ts';
import { type MatmulCase, matmulBytes, matmulCaseName, matmulFlops, modelMatmulCases, squareMatmulCases } from './shapes.ts';
import { type TimingOptions, timeGpu, timeRuns } from './timing.ts';

/** tfjs ran 512³ at about 0.5 GFLOP/s here (2 s per 1024³), so it runs up to this size: 512³ and the model's shapes (768 rows). */
const TFJS_MAX_SIZE = 768;
/** jax-js ran 512³ at under 1 GFLOP/s here, like tfjs; the brief's comparison is at 512³. */
const JAX_SIZE = 512;
const SAMPLES = 32;

export const matmulSection: BenchSection = {
  name: 'matmul',
  async run(ctx) {
    const cases = [...modelMatmulCases(ctx.shape), ...squareMatmulCases(ctx.quick)].filter((c) => ctx.wants(matmulCaseName(c)));
    if (cases.length === 0) return [];
    ctx.progress(`matmul: PyTorch peer, ${cases.length} shapes`);
    const torch = await ctx.torch({ timing: { warmup: 2, reps: 10, budgetMs: 1_000 }, matmul: cases });
    const ours: number[] = [];
    for (const c of cases) {
      ctx.progress(`matmul: ours ${matmulCaseName(c)}`);
      ours.push(await oursGflops(ctx.gpu, c, timingFor(c, ctx.quick)));
    }
    const tfjsCases = cases.filter((c) => Math.max(c.M, c.K, c.N) <= TFJS_MAX_SIZE);
    const tfjs = new Map<MatmulCase, PeerFigure>();
    if (tfjsCases.length > 0) {
      const peer = await ctx.tfjs();
      for (const c of tfjsCases) {
        if (typeof peer === 'string') tfjs.set(c, { name: 'tfjs-webgpu', unavailable: peer });
        else {
          ctx.progress(`matmul: tfjs ${matmulCaseName(c)}`);
          tfjs.set(c, { name: peer.name, value: await tfjsGflops(peer, c, timingFor(c, ctx.quick)) });
        }
      }
    }

    const jaxCases = cases.filter((c) => c.M === JAX_SIZE && c.K === JAX_SIZE && c.N === JAX_SIZE);
    const jax = new Map<MatmulCase, PeerFigure>();
    if (jaxCases.length > 0) {
      const peer = await jaxPeer(ctx.gpu.report);
      for (const c of jaxCases) {
        if (typeof peer === 'string') jax.set(c, { name: 'jax-js-webgpu', unavailable: peer });
        else {
          ctx.progress(`matmul: jax-js ${matmulCaseName(c)}`);
          jax.set(c, { name: peer.name, value: await jaxGflops(peer, c, timingFor(c, ctx.quick)) });
        }
      }
    }

    const rows: BenchRow[] = [];
    cases.forEach((c, i) => {
      const name = matmulCaseName(c);
      const ceiling = ctx.ceilings ? rooflineGflops(ctx.ceilings, matmulFlops(c), matmulBytes(c)) : 0;
      const torchFigure: PeerFigure = 'unavailable' in torch ? { name: 'pytorch cpu', ...torch } : { name: torch.name, value: torch.matmulGflops[i] };
      const peers = [tfjs.get(c), jax.get(c), torchFigure].filter((p): p is PeerFigure => p !== undefined);
      for (const peer of peers) rows.push(withCeiling(makeRow(name, 'GFLOP/s', ours[i], peer), ceiling));
    });
    const best = ours.indexOf(Math.max(...ours));
    const bestName = `matmul best of the above: ${matmulCaseName(cases[best]).replace(/^matmul /, '')}`;
    if (ctx.wants(bestName)) rows.push(withCeiling(makeRow(bestName, 'GFLOP/s', ours[best]), ctx.ceilings?.computeGflops ?? 0));
    return rows;
  },
};

/**
 * Model shapes take milliseconds; n³ takes about n³/0.5e9 s on SwiftShader (17 s at 2048³). From
 * 1024 on, the kernel's pipeline has already been compiled and run at 512 in the same layout, so
 * there is no warm-up and the budget allows a single run.
 */
function timingFor(c: MatmulCase, quick: boolean): TimingOptions {
  if (Math.max(c.M, c.N, c.K) >= 1024) return { warmup: 0, reps: 3, budgetMs: 3_000 };
  return { warmup: 1, reps: quick ? 5 : 10, budgetMs: quick ? 1_000 : 3_000 };
}

/** Operands stored as the layout reads them: A [M, K] or [K, M] (tn), B [K, N] or [N, K] (nt). */
function operands(c: MatmulCase): { a: Float32Array; b: Float32Array } {
  const rng = new SeededRandom(c.M * 31 + c.K * 7 + c.N);
  return { a: rng.uniformArray(c.M * c.K), b: rng.uniformArray(c.K * c.N) };
}

async function oursGflops(gpu: Gpu, c: MatmulCase, timing: TimingOptions): Promise<number> {
  const { a, b } = operands(c);
  const shape = { M: c.M, K: c.K, N: c.N, layout: c.layout };
  // A: [M·K] f32 · B: [K·N] f32 · C: [M, N] f32
  const A = gpu.upload(a, [a.length], 'bench.A');
  const B = gpu.upload(b, [b.length], 'bench.B');
  const C = gpu.tensor([c.M, c.N], 'f32', 'bench.C');
  try {
    const { medianMs } = await timeGpu(gpu, (rec) => recordMatmul(rec, gpu, { a: A, b: B, c: C }, shape), timing);
    checkSamples(c, a, b, await gpu.read(C), 'ours');
    return matmulFlops(c) / (medianMs / 1000) / 1e9;
  } finally {
    for (const t of [A, B, C]) gpu.destroy(t);
  }
}

async function tfjsGflops(peer: TfjsPeer, c: MatmulCase, timing: TimingOptions): Promise<number> {
  const { tf } = peer;
  const { a, b } = operands(c);
  const A = c.layout === 'tn' ? tf.tensor2d(a, [c.K, c.M]) : tf.tensor2d(a, [c.M, c.K]);
  const B = c.layout === 'nt' ? tf.tensor2d(b, [c.N, c.K]) : tf.tensor2d(b, [c.K, c.N]);
  const product = () => tf.matMul(A, B, c.layout === 'tn', c.layout === 'nt');
  try {
    const { medianMs } = await timeRuns(async () => {
      product().dispose();
      await peer.sync();
    }, timing);
    const C = product();
    checkSamples(c, a, b, (await C.data()) as Float32Array, peer.name);
    C.dispose();
    return matmulFlops(c) / (medianMs / 1000) / 1e9;
  } finally {
    A.dispose();
    B.dispose();
  }
}

/** jax-js's `matmul` on transposed views for nt and tn (its kernels read the strides), timed to blockUntilReady. */
async function jaxGflops(peer: JaxPeer, c: MatmulCase, timing: TimingOptions): Promise<number> {
  const np = peer.jax.numpy;
  const { a, b } = operands(c);
  const A = c.layout === 'tn' ? np.array(a).reshape([c.K, c.M]) : np.array(a).reshape([c.M, c.K]);
  const B = c.layout === 'nt' ? np.array(b).reshape([c.N, c.K]) : np.array(b).reshape([c.K, c.N]);
  const product = () => np.matmul(c.layout === 'tn' ? A.ref.transpose() : A.ref, c.layout === 'nt' ? B.ref.transpose() : B.ref);
  try {
    const { medianMs } = await timeRuns(async () => (await product().blockUntilReady()).dispose(), timing);
    checkSamples(c, a, b, (await product().data()) as Float32Array, peer.name);
    return matmulFlops(c) / (medianMs / 1000) / 1e9;
  } finally {
    A.dispose();
    B.dispose();
  }
}

/** Compares SAMPLES entries of C with float64 dot products, to a tolerance scaled by Σ|a·b| (f32 accumulation over K). */
function checkSamples(c: MatmulCase, a: Float32Array, b: Float32Array, got: Float32Array, who: string): void {
  const rng = new SeededRandom(7);
  const at = (m: number, k: number) => (c.layout === 'tn' ? a[k * c.M + m] : a[m * c.K + k]);
  const bt = (k: number, n: number) => (c.layout === 'nt' ? b[n * c.K + k] : b[k * c.N + n]);
  for (let s = 0; s < SAMPLES; s++) {
    const m = s === 0 ? c.M - 1 : rng.int(0, c.M - 1);
    const n = s === 0 ? c.N - 1 : rng.int(0, c.N - 1);
    let sum = 0;
    let scale = 0;
    for (let k = 0; k < c.K; k++) {
      sum += at(m, k) * bt(k, n);
      scale += Math.abs(at(m, k) * bt(k, n));
    }
    if (!(Math.abs(got[m * c.N + n] - sum) <= 1e-4 * scale + 1e-6)) {
      throw new Error(`bench ${matmulCaseName(c)} (${who}): C[${m}, ${n}] = ${got[m * c.N + n]}, float64 reference ${sum}`);
    }
  }
}

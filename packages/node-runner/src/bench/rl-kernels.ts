// RL-kernel rows (docs/algorithms/): GAE in both forms and the per-token loss kernels at B×T up to 256×2048,
// in elements/s (tokens), beside the float64 TypeScript reference loop on the CPU — what a trainer
// without these kernels would run. Each GPU result is checked against the reference on the same
// data before its time is reported, so a broken kernel fails the bench instead of winning it.
//
// Shape legend: B sequences of T tokens; every tensor [B, T] except per-sample [B].

import {
  actionCounts,
  type Gpu,
  gaeRef,
  gaeSampleParams,
  KL_METRICS,
  klRef,
  lossScales,
  partialCount,
  policyLossMetricCount,
  policyLossRef,
  type Recorder,
  recordGae,
  recordKl,
  recordPolicyLoss,
  recordValueLoss,
  recordWhiten,
  SeededRandom,
  type Tensor,
  VALUE_LOSS_METRICS,
  valueLossRef,
  whitenRef,
} from '@horizon/kernels';
import { type BenchRow, makeRow } from './row.ts';
import { type TimingOptions, timeGpu, timeRuns } from './timing.ts';

const PEER = 'TS reference (CPU)';

export interface RlBenchOptions {
  /** CI-sized shapes (64×512) and fewer repetitions. */
  quick: boolean;
  /** Whether a row of this name was asked for (`--only`); default all. */
  wants?: (name: string) => boolean;
  /** One line of progress per row. */
  progress?: (line: string) => void;
}

interface Case {
  B: number;
  T: number;
  rewards: Float32Array;
  values: Float32Array;
  oldValues: Float32Array;
  logp: Float32Array;
  oldLogp: Float32Array;
  advantages: Float32Array;
  mask: Uint32Array;
  scales: Float32Array;
}

function makeCase(B: number, T: number): Case {
  const rng = new SeededRandom(B * 7919 + T);
  const N = B * T;
  const oldLogp = rng.uniformArray(N, -4, -0.01);
  const oldValues = rng.uniformArray(N);
  const mask = Uint32Array.from({ length: N }, () => (rng.next() < 0.75 ? 1 : 0));
  return {
    B,
    T,
    rewards: rng.uniformArray(N),
    values: oldValues.map((v) => v + (rng.next() - 0.5) * 0.5),
    oldValues,
    logp: oldLogp.map((x) => x + (rng.next() - 0.5) * 0.6),
    oldLogp,
    advantages: rng.uniformArray(N, -2, 2),
    mask,
    scales: lossScales(actionCounts(mask, B, T), { mode: 'token-mean' }),
  };
}

/** Largest |a − b| relative to b's scale. */
function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let err = 0;
  let scale = 1;
  for (let i = 0; i < b.length; i++) {
    err = Math.max(err, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return err / scale;
}

interface Kernel {
  name: string;
  /** Records the kernel on already-uploaded tensors; returns the tensor checked against `reference`. */
  setup(gpu: Gpu, c: Case, up: (a: Float32Array | Uint32Array) => Tensor, alloc: (n: number) => Tensor): { record: (rec: Recorder) => void; output: Tensor };
  /** The CPU peer, returning the values the GPU output must match. */
  reference(c: Case): ArrayLike<number>;
}

const KERNELS: Kernel[] = [
  ...(['loop', 'scan'] as const).map(
    (variant): Kernel => ({
      name: `gae ${variant}`,
      setup(gpu, c, up, alloc) {
        const { lambdas, info } = gaeSampleParams(c.B, { lambda: 0.95, lambdaCritic: 1 });
        const t = {
          rewards: up(c.rewards),
          values: up(c.values),
          mask: up(c.mask),
          bootstrap: alloc(c.B),
          lambdas: up(lambdas),
          info: up(info),
          advantages: alloc(c.B * c.T),
          returns: alloc(c.B * c.T),
        };
        return { record: (rec) => recordGae(rec, gpu, t, { B: c.B, T: c.T, gamma: 1, variant }), output: t.advantages };
      },
      reference: (c) =>
        gaeRef(
          { rewards: c.rewards, values: c.values, actionMask: c.mask },
          { B: c.B, T: c.T, gamma: 1, lambda: Array(c.B).fill(0.95), lambdaCritic: Array(c.B).fill(1) },
        ).advantages,
    }),
  ),
  {
    name: 'ppo loss',
    setup(gpu, c, up, alloc) {
      const K = policyLossMetricCount('ppo');
      const t = {
        logp: up(c.logp),
        oldLogp: up(c.oldLogp),
        advantages: up(c.advantages),
        mask: up(c.mask),
        scales: up(c.scales),
        loss: alloc(c.B * c.T),
        grad: alloc(c.B * c.T),
        partials: alloc(K * partialCount(gpu, c.B * c.T)),
        metrics: alloc(K),
      };
      return { record: (rec) => recordPolicyLoss(rec, gpu, t, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.28, B: c.B, T: c.T }), output: t.grad };
    },
    reference: (c) => policyLossRef(c, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.28, B: c.B, T: c.T }).grad,
  },
  {
    name: 'value loss',
    setup(gpu, c, up, alloc) {
      const t = {
        values: up(c.values),
        oldValues: up(c.oldValues),
        returns: up(c.rewards),
        mask: up(c.mask),
        scales: up(c.scales),
        loss: alloc(c.B * c.T),
        grad: alloc(c.B * c.T),
        partials: alloc(VALUE_LOSS_METRICS * partialCount(gpu, c.B * c.T)),
        metrics: alloc(VALUE_LOSS_METRICS),
      };
      return { record: (rec) => recordValueLoss(rec, gpu, t, { B: c.B, T: c.T, clip: 0.2 }), output: t.grad };
    },
    reference: (c) => valueLossRef({ ...c, returns: c.rewards }, { B: c.B, T: c.T, clip: 0.2 }).grad,
  },
  {
    name: 'kl k3',
    setup(gpu, c, up, alloc) {
      const t = {
        logp: up(c.logp),
        refLogp: up(c.oldLogp),
        mask: up(c.mask),
        scales: up(c.scales),
        loss: alloc(c.B * c.T),
        grad: alloc(c.B * c.T),
        partials: alloc(KL_METRICS * partialCount(gpu, c.B * c.T)),
        metrics: alloc(KL_METRICS),
      };
      return { record: (rec) => recordKl(rec, gpu, t, { B: c.B, T: c.T, estimator: 'k3' }), output: t.loss };
    },
    reference: (c) => klRef({ ...c, refLogp: c.oldLogp }, { B: c.B, T: c.T, estimator: 'k3' }).perToken,
  },
  {
    name: 'whiten',
    setup(gpu, c, up, alloc) {
      const t = { values: up(c.advantages), mask: up(c.mask), partials: alloc(2 * partialCount(gpu, c.B * c.T)), stats: alloc(6), out: alloc(c.B * c.T) };
      return { record: (rec) => recordWhiten(rec, gpu, t, { N: c.B * c.T }), output: t.out };
    },
    reference: (c) => whitenRef(c.advantages, c.mask, 1e-8).whitened,
  },
];

/** Shapes per kernel: GAE also at a small batch, where one invocation per sequence leaves the GPU idle. */
function shapes(kernel: Kernel, quick: boolean): [number, number][] {
  if (quick) return [[64, 512]];
  return kernel.name.startsWith('gae')
    ? [
        [16, 2048],
        [256, 2048],
      ]
    : [[256, 2048]];
}

/**
 * Measures the RL kernels' throughput (tokens per second) at B×T up to 256×2048, each beside the
 * float64 TypeScript reference on the CPU. Throws if a GPU result disagrees with the reference.
 */
export async function benchRlKernels(gpu: Gpu, options: RlBenchOptions): Promise<BenchRow[]> {
  const timing: TimingOptions = options.quick ? { warmup: 1, reps: 3, budgetMs: 500 } : { warmup: 2, reps: 10, budgetMs: 2_000 };
  const cpuTiming: TimingOptions = options.quick ? { warmup: 0, reps: 2, budgetMs: 500 } : { warmup: 1, reps: 5, budgetMs: 3_000 };
  const cases = new Map<string, Case>();
  const rows: BenchRow[] = [];
  for (const kernel of KERNELS) {
    for (const [B, T] of shapes(kernel, options.quick)) {
      const name = `${kernel.name} ${B}×${T}`;
      if (options.wants && !options.wants(name)) continue;
      options.progress?.(`rl kernels: ${name}`);
      const key = `${B}×${T}`;
      const c = cases.get(key) ?? makeCase(B, T);
      cases.set(key, c);
      const owned: Tensor[] = [];
      const keep = (t: Tensor) => {
        owned.push(t);
        return t;
      };
      try {
        const { record, output } = kernel.setup(
          gpu,
          c,
          (a) => keep(gpu.upload(a, [a.length], kernel.name)),
          (n) => keep(gpu.tensor([n], 'f32', kernel.name)),
        );
        const ours = await timeGpu(gpu, record, timing);
        let expected: ArrayLike<number> = [];
        const peer = await timeRuns(async () => {
          expected = kernel.reference(c);
        }, cpuTiming);
        const error = relativeError(await gpu.read(output), expected);
        if (!(error < 1e-4)) throw new Error(`bench ${name}: the GPU result differs from the reference by ${error.toExponential(2)} of its scale`);
        const tokens = B * T;
        const row = makeRow(name, 'elements/s', tokens / (ours.medianMs / 1000), { name: PEER, value: tokens / (peer.medianMs / 1000) });
        row.note = `one submit ${ours.medianMs.toFixed(2)} ms vs ${peer.medianMs.toFixed(1)} ms on the CPU (float64 loop); checked to ${error.toExponential(0)}`;
        rows.push(row);
      } finally {
        for (const t of owned) gpu.destroy(t);
      }
    }
  }
  return rows;
}

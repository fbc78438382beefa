// Times matmul kernel variants on whatever device Dawn gives (SwiftShader here): every layout at
// 512³ and at the GPT's Linear shapes, scalar path against vec4 path, across blockings. Not a test:
// it prints GFLOP/s so the winner can be written into MATMUL_BLOCKING (llm.c's dev/cuda habit).
//
//   npx tsx tools/time-matmul.ts [--quick] [--recipe]   (--quick: only the blocking the launcher uses;
//                                                     --recipe: the default recipe's minibatch shapes)

import {
  canShareRows,
  ceilDiv,
  chooseMatmulVariant,
  MATMUL_BLOCKING,
  type MatmulBlocking,
  type MatmulLayout,
  matmulTile,
  matmulWgsl,
  SeededRandom,
} from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';

interface Case {
  layout: MatmulLayout;
  M: number;
  K: number;
  N: number;
  what: string;
}

// --quick: every case with the blocking the launcher uses, no search.
const quick = process.argv.includes('--quick');
const gpu = await acquireNodeGpu();
const rng = new SeededRandom(1);

// --recipe: the default recipe's minibatch (B·T = 64 × 12 = 768 rows, D = 32, 3D = 96, 4D = 128).
const recipeCases: Case[] = [
  { layout: 'nt', M: 768, K: 32, N: 96, what: 'qkv forward' },
  { layout: 'nt', M: 768, K: 32, N: 128, what: 'fc forward' },
  { layout: 'nt', M: 768, K: 128, N: 32, what: 'proj forward' },
  { layout: 'nn', M: 768, K: 96, N: 32, what: 'qkv dinp' },
  { layout: 'nn', M: 768, K: 32, N: 128, what: 'proj dinp' },
  { layout: 'tn', M: 96, K: 768, N: 32, what: 'qkv dW' },
  { layout: 'tn', M: 32, K: 768, N: 128, what: 'proj dW' },
];

// BT = 256 tokens, D = 64 (the default tiny GPT), hidden 4D = 256, qkv 3D = 192.
const modelCases: Case[] = [
  ...(['nn', 'nt', 'tn'] as const).map((layout) => ({ layout, M: 512, K: 512, N: 512, what: '512³' })),
  { layout: 'nt', M: 256, K: 64, N: 192, what: 'qkv forward' },
  { layout: 'nt', M: 256, K: 64, N: 256, what: 'fc forward' },
  { layout: 'nt', M: 256, K: 256, N: 64, what: 'proj forward' },
  { layout: 'nn', M: 256, K: 256, N: 64, what: 'fc dinp' },
  { layout: 'nn', M: 256, K: 64, N: 256, what: 'proj dinp' },
  { layout: 'tn', M: 256, K: 256, N: 64, what: 'fc dW (K = BT)' },
  { layout: 'tn', M: 64, K: 256, N: 256, what: 'proj dW (K = BT)' },
  // A ragged vocabulary (V = 97) sends the lm_head's dinp and dW to the scalar path.
  { layout: 'nn', M: 256, K: 97, N: 64, what: 'lm_head dinp' },
  { layout: 'tn', M: 97, K: 256, N: 64, what: 'lm_head dW' },
];
const cases = process.argv.includes('--recipe') ? recipeCases : modelCases;

// Candidates around the winner. A first round (4×4, 4×8, 8×4, 8×8 in 8×8 workgroups; 4×4 in 16×16
// and 16×4 workgroups) had 8×8 first at every shape (docs/experiments.md, 2026-11-30).
const blockings: MatmulBlocking[] = [
  { rows: 4, cols: 4, workgroup: [8, 8] },
  { rows: 8, cols: 8, workgroup: [8, 8] },
  { rows: 8, cols: 8, workgroup: [4, 4] },
  { rows: 8, cols: 8, workgroup: [8, 4] },
  { rows: 8, cols: 12, workgroup: [8, 8] },
  { rows: 12, cols: 8, workgroup: [8, 8] },
  { rows: 8, cols: 16, workgroup: [8, 8] },
  { rows: 16, cols: 8, workgroup: [8, 8] },
  // The shared path's blocking: one four-lane subgroup per workgroup (MATMUL_BLOCKING.shared).
  { rows: 16, cols: 8, workgroup: [4, 1] },
];
const scalarBlockings: MatmulBlocking[] = [
  { rows: 4, cols: 4, workgroup: [8, 8] },
  { rows: 8, cols: 8, workgroup: [8, 8] },
  { rows: 8, cols: 8, workgroup: [4, 4] },
];
const name = (vec4: boolean, b: MatmulBlocking) => `${vec4 ? 'vec4' : 'scalar'} ${b.rows}×${b.cols} wg ${b.workgroup.join('×')}`;

/** Seconds per run: repeats until 0.2 s have passed. */
async function seconds(run: () => void): Promise<number> {
  for (let reps = 1; ; reps *= 2) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) run();
    await gpu.sync();
    const elapsed = (performance.now() - t0) / 1000;
    if (elapsed > 0.2) return elapsed / reps;
  }
}

// Other work shares the CPU, so variants are timed in interleaved rounds and each keeps its best round.
const ROUNDS = quick ? 2 : 3;
for (const c of cases) {
  const a = gpu.upload(rng.uniformArray(c.M * c.K));
  const b = gpu.upload(rng.uniformArray(c.K * c.N));
  const out = gpu.tensor([c.M * c.N]);
  const params = gpu.uniform([c.M, c.K, c.N, 1]);
  const flops = 2 * c.M * c.K * c.N;
  const fitsVec4 = chooseMatmulVariant(c, false).vec4;
  const variants = (
    quick
      ? [{ vec4: fitsVec4, blocking: MATMUL_BLOCKING[fitsVec4 ? 'vec4' : 'scalar'] }]
      : [...scalarBlockings.map((blocking) => ({ vec4: false, blocking })), ...(fitsVec4 ? blockings.map((blocking) => ({ vec4: true, blocking })) : [])]
  )
    .filter((v) => !(v.vec4 && c.layout === 'tn' && v.blocking.rows % 4 !== 0))
    .map((v): { vec4: boolean; blocking: MatmulBlocking; name: string; shareRows?: boolean } => ({ ...v, name: name(v.vec4, v.blocking) }));
  // Where the device has quad subgroups, the vec4 variants also run with A's rows shared.
  if (!quick && gpu.report.quadSubgroups && fitsVec4) {
    for (const v of variants.filter((x) => canShareRows({ layout: c.layout, vec4: x.vec4 }, x.blocking)))
      variants.push({ ...v, shareRows: true, name: `${v.name} shared` });
  }
  const runs = variants.map((v) => {
    const variant = { layout: c.layout, bias: false, accumulate: false, vec4: v.vec4, ...('shareRows' in v ? { shareRows: true } : {}) };
    const pipeline = gpu.pipeline(matmulWgsl(variant, v.blocking), 'main', v.name);
    const tile = matmulTile(v.blocking);
    return () => gpu.run((rec) => rec.dispatch(pipeline, [a, b, out, params], ceilDiv(c.N, tile.cols), ceilDiv(c.M, tile.rows)));
  });
  const best = variants.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < runs.length; i++) best[i] = Math.min(best[i], await seconds(runs[i]));
  }
  variants.forEach((v, i) => {
    const s = best[i];
    console.log(
      `${c.layout} ${c.M}×${c.K}×${c.N} ${c.what.padEnd(16)} ${v.name.padEnd(22)} ${(flops / s / 1e9).toFixed(2).padStart(6)} GFLOP/s  ${(s * 1000).toFixed(2)} ms`,
    );
  });
  for (const t of [a, b, out]) gpu.destroy(t);
}
gpu.destroyDevice();

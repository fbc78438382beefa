// The shapes the bench measures: the default recipe's policy (add-ppo: 2 layers, 4 heads, width 32,
// the 13-symbol addition vocabulary) at one update minibatch of it (64 rollouts × 12 positions =
// 768 rows). Every section derives its sizes from one `BenchModelShape`.
//
// Shape legend: B batch · T tokens (= contextLength) · D width · H heads · L layers · V vocabulary

import type { GptConfig } from '@horizon/core';
import type { MatmulLayout } from '@horizon/kernels';

export interface BenchModelShape {
  model: GptConfig;
  /** Sequences per step; each is `model.contextLength` tokens long. */
  batch: number;
}

export const DEFAULT_BENCH_MODEL: BenchModelShape = {
  model: { vocabSize: 13, contextLength: 12, layers: 2, heads: 4, width: 32, head: 'lm' },
  batch: 64,
};

/** "L2 H4 D64 T64 B8 V20": how row names spell a model shape. */
export function describeModelShape({ model, batch }: BenchModelShape): string {
  return `L${model.layers} H${model.heads} D${model.width} T${model.contextLength} B${batch} V${model.vocabSize}`;
}

export interface MatmulCase {
  M: number;
  K: number;
  N: number;
  layout: MatmulLayout;
  /** Which product of the model this is, e.g. "mlp.c_fc fwd"; empty for square sizes. */
  role: string;
}

/**
 * The products one training step of the model runs, per linear layer W: [out, in] (stored like
 * nn.Linear): forward Y = X·Wᵀ (nt), input gradient dX = dY·W (nn), weight gradient dW = dYᵀ·X (tn).
 * Attention's own products are batched per head and belong to the attention rows.
 */
export function modelMatmulCases({ model, batch }: BenchModelShape): MatmulCase[] {
  const rows = batch * model.contextLength;
  const D = model.width;
  const linears: Array<[string, number, number]> = [
    ['mlp.c_fc', D, 4 * D],
    ['mlp.c_proj', 4 * D, D],
    ['lm_head', D, model.vocabSize],
  ];
  return linears.flatMap(([name, inputs, outputs]) => [
    { M: rows, K: inputs, N: outputs, layout: 'nt' as const, role: `${name} fwd` },
    { M: rows, K: outputs, N: inputs, layout: 'nn' as const, role: `${name} dX` },
    { M: outputs, K: rows, N: inputs, layout: 'tn' as const, role: `${name} dW` },
  ]);
}

/** n×n×n in every layout: 512 in quick runs; 512, 1024 and 2048 in full runs. */
export function squareMatmulCases(quick: boolean): MatmulCase[] {
  const sizes = quick ? [512] : [512, 1024, 2048];
  const layouts: MatmulLayout[] = ['nn', 'nt', 'tn'];
  return sizes.flatMap((n) => layouts.map((layout) => ({ M: n, K: n, N: n, layout, role: '' })));
}

export function matmulCaseName(c: MatmulCase): string {
  return `matmul ${c.layout} ${c.M}×${c.K}×${c.N}${c.role ? ` (${c.role})` : ''}`;
}

export function matmulFlops(c: MatmulCase): number {
  return 2 * c.M * c.K * c.N;
}

/** Bytes a matmul must move at least once: read A and B, write C (f32). */
export function matmulBytes(c: MatmulCase): number {
  return 4 * (c.M * c.K + c.K * c.N + c.M * c.N);
}

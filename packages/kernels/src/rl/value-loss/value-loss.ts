// Clipped value loss on the GPU with the gradient of the aggregated loss w.r.t. the critic's values.
// Math: value-loss.ref.ts. Runs on the shared token-loss kernel (common/token-loss.wgsl.ts).
//
// Shapes: values, oldValues, returns, loss, grad [B, T] f32; mask [B, T] u32; scales [B] f32;
// metrics receive [loss, clipped count, token count].

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { checkArray, checkMask, checkNumber, checkSizes } from '../../util/checks.ts';
import { type AggregationOptions, resolveScales } from '../aggregate/scales.ts';
import { partialCount } from '../common/reduce.ts';
import { withScope } from '../common/scope.ts';
import { recordTokenLoss, type TokenLossTensors } from '../common/token-loss.ts';
import type { TokenLossSpec } from '../common/token-loss.wgsl.ts';

const VALUE_LOSS: TokenLossSpec = {
  inputs: ['values', 'oldValues', 'returns'],
  flags: ['clipped'],
  body: /* wgsl */ `
      let e1 = values[i] - returns[i];
      var value = 0.5 * e1 * e1;
      var dvalue = e1;
      var clipped = 0.0;
      // Inside the clip range V_clip is V itself; computing it as V_old + (V − V_old) would round
      // to a slightly different number and could flip the strict comparison, zeroing a live gradient.
      let dv = values[i] - oldValues[i];
      if (p.h1 > 0.0 && abs(dv) > p.h0) {
        let e2 = oldValues[i] + clamp(dv, -p.h0, p.h0) - returns[i];
        if (e2 * e2 > e1 * e1) {
          value = 0.5 * e2 * e2;
          dvalue = 0.0;
          clipped = 1.0;
        }
      }`,
};

/** Metrics written: loss, clipped count, token count. */
export const VALUE_LOSS_METRICS = 3;

export interface ValueLossTensors extends TokenLossTensors {
  /** values: [B, T] f32 — V_φ of the critic being trained. */
  values: Tensor;
  /** oldValues: [B, T] f32 — values recorded when the batch was scored. */
  oldValues: Tensor;
  /** returns: [B, T] f32 — critic targets R̂ from GAE. */
  returns: Tensor;
}

export function recordValueLoss(rec: Recorder, gpu: Gpu, t: ValueLossTensors, options: { B: number; T: number; clip?: number; metricsOffset?: number }): void {
  if (options.clip !== undefined) checkNumber('valueLoss', 'clip', options.clip, 0, Number.MAX_VALUE);
  recordTokenLoss(rec, gpu, t, {
    kernel: 'value_loss',
    spec: VALUE_LOSS,
    inputs: [t.values, t.oldValues, t.returns],
    B: options.B,
    T: options.T,
    hyper: [options.clip ?? 0, options.clip === undefined ? 0 : 1],
    ...(options.metricsOffset === undefined ? {} : { metricsOffset: options.metricsOffset }),
  });
}

export interface ValueLossInputs {
  /** [B, T] current critic values V. */
  values: Float32Array;
  /** [B, T] values when the batch was scored, V_old. */
  oldValues: Float32Array;
  /** [B, T] targets R̂. */
  returns: Float32Array;
  /** [B, T] 1 = action token. */
  mask: Uint32Array;
  /** [B] optional batch-wide aggregation scales. */
  scales?: Float32Array;
}

/**
 * Host API: clipped value loss (docs/algorithms/ppo-gae.md §5), units of reward².
 *   L_t = ½·max((V − R̂)², (V_old + clamp(V − V_old, ±ε_v) − R̂)²),  loss = Σ m·scale·L_t,
 *   grad = d loss / dV. Without `clip`, plain ½(V − R̂)². Defaults: verl ε_v = 0.5, slime/TRL 0.2.
 */
export async function valueLoss(
  gpu: Gpu,
  inputs: ValueLossInputs,
  options: { B: number; T: number; clip?: number } & Partial<AggregationOptions>,
): Promise<{ loss: number; perToken: Float32Array; grad: Float32Array; clipFraction: number }> {
  const { B, T } = options;
  checkSizes('valueLoss', { B, T });
  for (const name of ['values', 'oldValues', 'returns'] as const) checkArray('valueLoss', name, inputs[name], B * T);
  checkMask('valueLoss', 'mask', inputs.mask, B * T);
  if (options.clip !== undefined) checkNumber('valueLoss', 'clip', options.clip, 0, Number.MAX_VALUE);
  const scales = resolveScales('valueLoss', inputs.mask, B, T, inputs.scales, options);
  return withScope(gpu, async (s) => {
    const loss = s.tensor(B * T, 'f32', 'loss');
    const grad = s.tensor(B * T, 'f32', 'grad');
    const metrics = s.tensor(VALUE_LOSS_METRICS, 'f32', 'metrics');
    const t: ValueLossTensors = {
      values: s.upload(inputs.values, 'values'),
      oldValues: s.upload(inputs.oldValues, 'oldValues'),
      returns: s.upload(inputs.returns, 'returns'),
      mask: s.upload(inputs.mask, 'mask'),
      scales: s.upload(scales, 'scales'),
      loss,
      grad,
      partials: s.tensor(VALUE_LOSS_METRICS * partialCount(gpu, B * T), 'f32', 'partials'),
      metrics,
    };
    gpu.run((rec) => recordValueLoss(rec, gpu, t, options), 'valueLoss');
    const m = await s.read(metrics);
    return { loss: m[0], perToken: await s.read(loss), grad: await s.read(grad), clipFraction: m[2] > 0 ? m[1] / m[2] : 0 };
  });
}

// The tiny GPT of core/model/config.ts written with tfjs ops, for the training-step peer row: the
// same parameters (names, shapes and seeded values from `parameterLayout`/`initParameters`), the
// same forward (pre-LayerNorm blocks, causal attention, tanh GELU, untied lm_head), token-mean
// cross-entropy, gradients by tfjs's autodiff (`optimizer.minimize`) and one Adam update.
//
// Shape legend: B batch · T tokens · D width · H heads · hd = D/H · V vocabulary

import { initParameters, LAYER_NORM_EPS, parameterLayout } from '@horizon/core';
import { SeededRandom } from '@horizon/kernels';
import type { Scalar, Tensor as TfTensor, Variable } from '@tensorflow/tfjs-core';
import type { BenchModelShape } from '../shapes.ts';
import { type TimingOptions, timeRuns } from '../timing.ts';
import type { TfjsPeer } from './tfjs.ts';

export const ADAM_LR = 1e-3;
/** A finite mask value (docs/design.md §5: never Inf). */
const MASKED = -1e9;

/**
 * Milliseconds per training step of tfjs on the bench model, timed from dispatch to the device
 * finishing (the loss stays on the GPU). Before timing, the first loss is checked against ln V (what
 * an untrained GPT-2-initialised model scores) so a broken twin is never timed.
 */
export async function tfjsTinyGptStepMs(peer: TfjsPeer, shape: BenchModelShape, timing: TimingOptions): Promise<number> {
  const { tf } = peer;
  const { model, batch } = shape;
  const B = batch;
  const T = model.contextLength;
  const D = model.width;
  const H = model.heads;
  const hd = D / H;
  const V = model.vocabSize;
  const layout = parameterLayout(model);
  const flat = initParameters(layout, model.layers, 1);
  const rng = new SeededRandom(2);
  const ids = () => Int32Array.from({ length: B * T }, () => rng.int(0, V - 1));
  const startTensors = tf.memory().numTensors;

  const params = new Map<string, Variable>();
  for (const e of layout.entries) {
    params.set(
      e.name,
      tf.tidy(() => tf.variable(tf.tensor(flat.subarray(e.offset, e.offset + e.size), e.shape), true, e.name)),
    );
  }
  const p = (name: string) => params.get(name)!;
  // tokens, targets: [B·T] i32 · causal: [T, T] f32, 0 on and below the diagonal, MASKED above
  const tokens = tf.tensor1d(ids(), 'int32');
  const targets = tf.tidy(() => tf.oneHot(tf.tensor1d(ids(), 'int32'), V)); // [B·T, V]
  const causal = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), MASKED));
  const optimizer = tf.train.adam(ADAM_LR);

  const layerNorm = (x: TfTensor, prefix: string) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, LAYER_NORM_EPS))), p(`${prefix}.weight`)), p(`${prefix}.bias`));
  };
  const linear = (x: TfTensor, prefix: string) => tf.add(tf.matMul(x, p(`${prefix}.weight`), false, true), p(`${prefix}.bias`));
  const gelu = (x: TfTensor) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.pow(x, 3)))))));
  const heads = (x: TfTensor) => tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3]); // [B, H, T, hd]

  const loss = () => {
    // x: [B·T, D]
    let x = tf.reshape(tf.add(tf.reshape(tf.gather(p('transformer.wte.weight'), tokens), [B, T, D]), p('transformer.wpe.weight')), [B * T, D]);
    for (let l = 0; l < model.layers; l++) {
      const h = `transformer.h.${l}`;
      const [q, k, v] = tf.split(linear(layerNorm(x, `${h}.ln_1`), `${h}.attn.c_attn`), 3, 1);
      const scores = tf.add(tf.mul(tf.matMul(heads(q), heads(k), false, true), 1 / Math.sqrt(hd)), causal); // [B, H, T, T]
      const y = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), heads(v)), [0, 2, 1, 3]), [B * T, D]);
      x = tf.add(x, linear(y, `${h}.attn.c_proj`));
      x = tf.add(x, linear(gelu(linear(layerNorm(x, `${h}.ln_2`), `${h}.mlp.c_fc`)), `${h}.mlp.c_proj`));
    }
    const logits = tf.matMul(layerNorm(x, 'transformer.ln_f'), p('lm_head.weight'), false, true); // [B·T, V]
    return tf.neg(tf.mean(tf.sum(tf.mul(targets, tf.logSoftmax(logits)), 1))) as Scalar;
  };

  let medianMs: number;
  try {
    const first = optimizer.minimize(loss, true)!;
    const firstLoss = (await first.data())[0];
    first.dispose();
    if (!(Math.abs(firstLoss - Math.log(V)) < 0.1)) {
      throw new Error(`tfjs tiny GPT: first loss ${firstLoss}, expected about ln V = ${Math.log(V).toFixed(3)}`);
    }
    const step = async () => {
      optimizer.minimize(loss, true)!.dispose();
      await peer.sync();
    };
    medianMs = (await timeRuns(step, timing)).medianMs;
  } finally {
    optimizer.dispose();
    for (const t of [...params.values(), tokens, targets, causal]) t.dispose();
  }
  const leaked = tf.memory().numTensors - startTensors;
  if (leaked > 0) throw new Error(`tfjs tiny GPT: ${leaked} tensors left behind after the steps`);
  return medianMs;
}

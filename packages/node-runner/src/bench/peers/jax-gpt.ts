// The tiny GPT of core/model/config.ts written with jax-js ops, for the training-step peer row: the
// same parameters (names, shapes and seeded values from `parameterLayout`/`initParameters`), the
// same forward as the tfjs twin (pre-LayerNorm blocks, causal attention, tanh GELU, untied
// lm_head), token-mean cross-entropy, gradients by jax-js's `valueAndGrad`, and one Adam update
// (PyTorch's defaults, as the PyTorch twin: β 0.9/0.999, ε 1e-8, lr 1e-3), the whole step under one
// `jit`. Where it differs: jax-js 0.1.25 ships no optimizer (optax is a separate package), so Adam
// is written out here; and the token embedding is a one-hot matmul, because `jit` cannot compile
// the scatter that the gradient of `take` (a gather) needs ("jit: routine primitive scatter input
// is not imm") — the same product, at V = 13 a [B·T, 13]·[13, D] matmul.
//
// Shape legend: B batch · T tokens · D width · H heads · hd = D/H · V vocabulary

import { initParameters, LAYER_NORM_EPS, parameterLayout } from '@horizon/core';
import { SeededRandom } from '@horizon/kernels';
import type { numpy } from '@jax-js/jax';
import type { BenchModelShape } from '../shapes.ts';
import { type TimingOptions, timeRuns } from '../timing.ts';
import type { JaxPeer } from './jax.ts';

type JArray = numpy.Array;
type Params = Record<string, JArray>;

const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8 };
/** A finite mask value (docs/design.md §5: never Inf). */
const MASKED = -1e9;

/**
 * Milliseconds per training step of jax-js on the bench model, timed from dispatch to the device
 * finishing the new parameters and moments (the loss stays on the GPU). Before timing, the first
 * loss is checked against ln V (an untrained GPT-2-initialised model), as the tfjs twin's is, and
 * the second against the first (one Adam step on the same batch must lower it), so a broken twin is
 * never timed. The first step is also jit's compilation (about 30 s on SwiftShader).
 */
export async function jaxTinyGptStepMs(peer: JaxPeer, shape: BenchModelShape, timing: TimingOptions): Promise<number> {
  const { jax } = peer;
  const { numpy: np, nn } = jax;
  const { model, batch: B } = shape;
  const T = model.contextLength;
  const D = model.width;
  const H = model.heads;
  const hd = D / H;
  const V = model.vocabSize;
  const layout = parameterLayout(model);
  const flat = initParameters(layout, model.layers, 1);
  const rng = new SeededRandom(2);
  const oneHotIds = () =>
    nn.oneHot(
      np.array(
        Int32Array.from({ length: B * T }, () => rng.int(0, V - 1)),
        { dtype: np.int32 },
      ),
      V,
    ); // [B·T, V]

  let params: Params = {};
  for (const e of layout.entries) params[e.name] = np.array(flat.slice(e.offset, e.offset + e.size)).reshape([...e.shape]);
  let m: Params = {};
  let v: Params = {};
  for (const name of Object.keys(params)) {
    m[name] = np.zerosLike(params[name].ref);
    v[name] = np.zerosLike(params[name].ref);
  }
  const tokens = oneHotIds();
  const targets = oneHotIds();
  // causal: [T, T], 0 on and below the diagonal, MASKED above
  const causal = np.array(Float32Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? MASKED : 0))).reshape([T, T]);

  // Consumes its arguments (jax-js's rule); every reuse takes a `.ref`.
  const lossOf = (p: Params, tokens: JArray, targets: JArray, causal: JArray): JArray => {
    const P = (name: string) => p[name].ref;
    const layerNorm = (x: JArray, prefix: string) => {
      const centred = x.sub(x.ref.mean(-1, { keepdims: true }));
      const variance = np.square(centred.ref).mean(-1, { keepdims: true });
      return centred
        .mul(np.reciprocal(np.sqrt(variance.add(LAYER_NORM_EPS))))
        .mul(P(`${prefix}.weight`))
        .add(P(`${prefix}.bias`));
    };
    const linear = (x: JArray, prefix: string) => np.matmul(x, P(`${prefix}.weight`).transpose()).add(P(`${prefix}.bias`));
    const gelu = (x: JArray) => x.ref.mul(0.5).mul(np.tanh(x.ref.add(np.power(x, 3).mul(0.044715)).mul(Math.sqrt(2 / Math.PI))).add(1));
    const heads = (x: JArray) => x.reshape([B, T, H, hd]).transpose([0, 2, 1, 3]); // [B, H, T, hd]

    // x: [B·T, D]
    let x = np
      .matmul(tokens.ref, P('transformer.wte.weight'))
      .reshape([B, T, D])
      .add(P('transformer.wpe.weight'))
      .reshape([B * T, D]);
    for (let l = 0; l < model.layers; l++) {
      const h = `transformer.h.${l}`;
      const [q, k, v] = np.split(linear(layerNorm(x.ref, `${h}.ln_1`), `${h}.attn.c_attn`), 3, 1);
      const scores = np
        .matmul(heads(q), heads(k).transpose([0, 1, 3, 2]))
        .mul(1 / Math.sqrt(hd))
        .add(causal.ref); // [B, H, T, T]
      const y = np
        .matmul(nn.softmax(scores, -1), heads(v))
        .transpose([0, 2, 1, 3])
        .reshape([B * T, D]);
      x = x.add(linear(y, `${h}.attn.c_proj`));
      x = x.ref.add(linear(gelu(linear(layerNorm(x, `${h}.ln_2`), `${h}.mlp.c_fc`)), `${h}.mlp.c_proj`));
    }
    const logits = np.matmul(layerNorm(x, 'transformer.ln_f'), P('lm_head.weight').transpose()); // [B·T, V]
    const loss = targets.ref.mul(nn.logSoftmax(logits, -1)).sum(1).mean().neg();
    jax.tree.dispose(p);
    for (const a of [tokens, targets, causal]) a.dispose();
    return loss;
  };

  // c1, c2: Adam's bias corrections 1/(1 − βᵗ), arguments so one compilation serves every step.
  const step = jax.jit((p: Params, m: Params, v: Params, c1: JArray, c2: JArray, tokens: JArray, targets: JArray, causal: JArray) => {
    const [loss, grads] = jax.valueAndGrad(lossOf)(jax.tree.ref(p), tokens, targets, causal);
    const next: Params = {};
    const nextM: Params = {};
    const nextV: Params = {};
    for (const name of Object.keys(grads)) {
      const g = grads[name];
      nextM[name] = m[name].mul(ADAM.beta1).add(g.ref.mul(1 - ADAM.beta1));
      nextV[name] = v[name].mul(ADAM.beta2).add(np.square(g).mul(1 - ADAM.beta2));
      const update = nextM[name].ref
        .mul(c1.ref)
        .mul(ADAM.lr)
        .div(np.sqrt(nextV[name].ref.mul(c2.ref)).add(ADAM.eps));
      next[name] = p[name].sub(update);
    }
    c1.dispose();
    c2.dispose();
    return [loss, next, nextM, nextV] as [JArray, Params, Params, Params];
  });

  let t = 0;
  /** One Adam step; returns the loss before it, still on the GPU. */
  const train = async (): Promise<JArray> => {
    t++;
    const c1 = np.array(1 / (1 - ADAM.beta1 ** t));
    const c2 = np.array(1 / (1 - ADAM.beta2 ** t));
    const [loss, p, nm, nv] = step(params, m, v, c1, c2, tokens.ref, targets.ref, causal.ref);
    params = p;
    m = nm;
    v = nv;
    await jax.blockUntilReady([params, m, v]);
    return loss;
  };
  const lossValue = async (loss: JArray) => (await loss.data())[0];

  try {
    const firstLoss = await lossValue(await train());
    if (!(Math.abs(firstLoss - Math.log(V)) < 0.1)) {
      throw new Error(`jax-js tiny GPT: first loss ${firstLoss}, expected about ln V = ${Math.log(V).toFixed(3)}`);
    }
    const secondLoss = await lossValue(await train());
    if (!(secondLoss < firstLoss)) throw new Error(`jax-js tiny GPT: the loss went from ${firstLoss} to ${secondLoss} after an Adam step on the same batch`);
    return (await timeRuns(async () => (await train()).dispose(), timing)).medianMs;
  } finally {
    step.dispose();
    jax.tree.dispose([params, m, v]);
    for (const a of [tokens, targets, causal]) a.dispose();
  }
}

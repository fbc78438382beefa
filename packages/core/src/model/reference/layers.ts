// Float64 reference layers of the GPT, each forward directly above its backward, in the order of the
// forward pass (llm.c's train_gpt2.c). Written from the math in ../config.ts's header, not from any
// WGSL: these plain loops are the spec the GPU kernels are checked against. Not fast, not clever.
//
// Shape legend:  B batch · T tokens · N = B·T rows · C input width · OC output width · V vocab
//                D width · H heads · hd = D/H
//
// Every backward ADDS into its gradient buffers (llm.c's convention): a tensor used twice sums its
// two contributions, so the caller zeroes gradients once per backward pass.

type F64 = Float64Array;
type Ids = ArrayLike<number>;

// ------------------------------------------------------------------ embedding: x = wte[token] + wpe[t]

export function embeddingForward(out: F64, tokens: Ids, wte: F64, wpe: F64, B: number, T: number, D: number): void {
  // out: [B, T, D] · tokens: [B, T] · wte: [V, D] · wpe: [contextLength, D]
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const row = (b * T + t) * D;
      const tok = tokens[b * T + t] * D;
      for (let i = 0; i < D; i++) out[row + i] = wte[tok + i] + wpe[t * D + i];
    }
  }
}

export function embeddingBackward(dwte: F64, dwpe: F64, dout: F64, tokens: Ids, B: number, T: number, D: number): void {
  // dwte: [V, D] · dwpe: [contextLength, D] · dout: [B, T, D]
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const row = (b * T + t) * D;
      const tok = tokens[b * T + t] * D;
      for (let i = 0; i < D; i++) {
        dwte[tok + i] += dout[row + i];
        dwpe[t * D + i] += dout[row + i];
      }
    }
  }
}

// ------------------------------------------------------------------ LayerNorm: y = (x − μ)·rstd·w + b

export function layerNormForward(out: F64, mean: F64, rstd: F64, inp: F64, weight: F64, bias: F64, N: number, C: number, eps: number): void {
  // out, inp: [N, C] · mean, rstd: [N] saved for backward · weight, bias: [C]
  for (let n = 0; n < N; n++) {
    const x = n * C;
    let mu = 0;
    for (let i = 0; i < C; i++) mu += inp[x + i];
    mu /= C;
    // Biased variance (divide by C), as torch.nn.LayerNorm.
    let variance = 0;
    for (let i = 0; i < C; i++) variance += (inp[x + i] - mu) ** 2;
    variance /= C;
    const r = 1 / Math.sqrt(variance + eps);
    for (let i = 0; i < C; i++) out[x + i] = (inp[x + i] - mu) * r * weight[i] + bias[i];
    mean[n] = mu;
    rstd[n] = r;
  }
}

export function layerNormBackward(dinp: F64, dweight: F64, dbias: F64, dout: F64, inp: F64, weight: F64, mean: F64, rstd: F64, N: number, C: number): void {
  // With x̂ = (x − μ)·rstd and g = dout·w:  dx = rstd·(g − mean(g) − x̂·mean(g·x̂)).
  for (let n = 0; n < N; n++) {
    const x = n * C;
    let gMean = 0;
    let gxMean = 0;
    for (let i = 0; i < C; i++) {
      const xhat = (inp[x + i] - mean[n]) * rstd[n];
      const g = dout[x + i] * weight[i];
      gMean += g;
      gxMean += g * xhat;
    }
    gMean /= C;
    gxMean /= C;
    for (let i = 0; i < C; i++) {
      const xhat = (inp[x + i] - mean[n]) * rstd[n];
      const g = dout[x + i] * weight[i];
      dbias[i] += dout[x + i];
      dweight[i] += dout[x + i] * xhat;
      dinp[x + i] += rstd[n] * (g - gMean - xhat * gxMean);
    }
  }
}

// ------------------------------------------------------------------ linear: y = x·Wᵀ + b (W stored [OC, C])

export function linearForward(out: F64, inp: F64, weight: F64, bias: F64 | null, N: number, C: number, OC: number): void {
  // out: [N, OC] · inp: [N, C] · weight: [OC, C] · bias: [OC] or none
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < OC; o++) {
      let sum = bias ? bias[o] : 0;
      for (let i = 0; i < C; i++) sum += inp[n * C + i] * weight[o * C + i];
      out[n * OC + o] = sum;
    }
  }
}

export function linearBackward(dinp: F64, dweight: F64, dbias: F64 | null, dout: F64, inp: F64, weight: F64, N: number, C: number, OC: number): void {
  // dinp += dout·W  [N, C] · dW += doutᵀ·x  [OC, C] · db += Σ_n dout  [OC]
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < OC; o++) {
      const d = dout[n * OC + o];
      if (dbias) dbias[o] += d;
      for (let i = 0; i < C; i++) {
        dinp[n * C + i] += d * weight[o * C + i];
        dweight[o * C + i] += d * inp[n * C + i];
      }
    }
  }
}

// ------------------------------------------------------------------ causal multi-head self-attention

export function attentionForward(out: F64, att: F64, qkv: F64, B: number, T: number, D: number, H: number): void {
  // out: [B, T, D] · att: [B, H, T, T] softmax probabilities, zero above the diagonal (saved for
  // backward) · qkv: [B, T, 3D] = q | k | v, head h at columns h·hd … h·hd + hd − 1 of each third.
  const hd = D / H;
  const scale = 1 / Math.sqrt(hd);
  const scores = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const q = (b * T + t) * 3 * D + h * hd;
        let max = -Infinity;
        for (let s = 0; s <= t; s++) {
          const k = (b * T + s) * 3 * D + D + h * hd;
          let dot = 0;
          for (let i = 0; i < hd; i++) dot += qkv[q + i] * qkv[k + i];
          scores[s] = dot * scale;
          if (scores[s] > max) max = scores[s];
        }
        let sum = 0;
        for (let s = 0; s <= t; s++) {
          scores[s] = Math.exp(scores[s] - max);
          sum += scores[s];
        }
        const a = ((b * H + h) * T + t) * T;
        for (let s = 0; s < T; s++) att[a + s] = s <= t ? scores[s] / sum : 0;
        const o = (b * T + t) * D + h * hd;
        for (let i = 0; i < hd; i++) {
          let y = 0;
          for (let s = 0; s <= t; s++) y += att[a + s] * qkv[(b * T + s) * 3 * D + 2 * D + h * hd + i];
          out[o + i] = y;
        }
      }
    }
  }
}

export function attentionBackward(dqkv: F64, dout: F64, qkv: F64, att: F64, B: number, T: number, D: number, H: number): void {
  // dqkv: [B, T, 3D] · dout: [B, T, D]. Softmax backward: dscore_s = p_s·(dp_s − Σ_r p_r·dp_r).
  const hd = D / H;
  const scale = 1 / Math.sqrt(hd);
  const dp = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const a = ((b * H + h) * T + t) * T;
        const o = (b * T + t) * D + h * hd;
        const q = (b * T + t) * 3 * D + h * hd;
        let weighted = 0;
        for (let s = 0; s <= t; s++) {
          const v = (b * T + s) * 3 * D + 2 * D + h * hd;
          let d = 0;
          for (let i = 0; i < hd; i++) {
            d += dout[o + i] * qkv[v + i];
            dqkv[v + i] += att[a + s] * dout[o + i];
          }
          dp[s] = d;
          weighted += att[a + s] * d;
        }
        for (let s = 0; s <= t; s++) {
          const dscore = att[a + s] * (dp[s] - weighted) * scale;
          const k = (b * T + s) * 3 * D + D + h * hd;
          for (let i = 0; i < hd; i++) {
            dqkv[q + i] += dscore * qkv[k + i];
            dqkv[k + i] += dscore * qkv[q + i];
          }
        }
      }
    }
  }
}

// ------------------------------------------------------------------ GELU, tanh approximation (GPT-2)

const GELU_SCALE = Math.sqrt(2 / Math.PI);

export function geluForward(out: F64, inp: F64, n: number): void {
  // gelu(x) = ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
  for (let i = 0; i < n; i++) {
    const x = inp[i];
    out[i] = 0.5 * x * (1 + Math.tanh(GELU_SCALE * (x + 0.044715 * x * x * x)));
  }
}

export function geluBackward(dinp: F64, inp: F64, dout: F64, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i];
    const th = Math.tanh(GELU_SCALE * (x + 0.044715 * x * x * x));
    const du = GELU_SCALE * (1 + 3 * 0.044715 * x * x);
    dinp[i] += dout[i] * (0.5 * (1 + th) + 0.5 * x * (1 - th * th) * du);
  }
}

// ------------------------------------------------------------------ residual: out = a + b

export function residualForward(out: F64, a: F64, b: F64, n: number): void {
  for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
}

export function residualBackward(da: F64, db: F64, dout: F64, n: number): void {
  for (let i = 0; i < n; i++) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

// ------------------------------------------------------------------ masked mean cross-entropy (lm head)

/** loss = Σ w·(logsumexp(logits) − logits[target]) / Σ w over positions; 0 when Σ w = 0. */
export function crossEntropyForward(logits: F64, targets: Ids, weights: ArrayLike<number>, N: number, V: number): number {
  // logits: [N, V] · targets, weights: [N]
  let total = 0;
  let weightSum = 0;
  for (let n = 0; n < N; n++) {
    if (weights[n] === 0) continue;
    weightSum += weights[n];
    total += weights[n] * (logSumExp(logits, n * V, V) - logits[n * V + targets[n]]);
  }
  return weightSum === 0 ? 0 : total / weightSum;
}

export function crossEntropyBackward(dlogits: F64, logits: F64, targets: Ids, weights: ArrayLike<number>, N: number, V: number, dloss = 1): void {
  // dlogits[n] += dloss·w_n/Σw·(softmax(logits[n]) − onehot(target_n))  [N, V]
  let weightSum = 0;
  for (let n = 0; n < N; n++) weightSum += weights[n];
  if (weightSum === 0) return;
  for (let n = 0; n < N; n++) {
    if (weights[n] === 0) continue;
    const c = (dloss * weights[n]) / weightSum;
    const lse = logSumExp(logits, n * V, V);
    for (let v = 0; v < V; v++) dlogits[n * V + v] += c * (Math.exp(logits[n * V + v] - lse) - (v === targets[n] ? 1 : 0));
  }
}

function logSumExp(x: F64, offset: number, n: number): number {
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, x[offset + i]);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(x[offset + i] - max);
  return max + Math.log(sum);
}

// ------------------------------------------------------------------ masked mean squared error (value head)

/** loss = Σ w·(value − target)² / Σ w over positions; 0 when Σ w = 0. */
export function mseForward(values: F64, targets: ArrayLike<number>, weights: ArrayLike<number>, N: number): number {
  let total = 0;
  let weightSum = 0;
  for (let n = 0; n < N; n++) {
    if (weights[n] === 0) continue;
    weightSum += weights[n];
    total += weights[n] * (values[n] - targets[n]) ** 2;
  }
  return weightSum === 0 ? 0 : total / weightSum;
}

export function mseBackward(dvalues: F64, values: F64, targets: ArrayLike<number>, weights: ArrayLike<number>, N: number, dloss = 1): void {
  let weightSum = 0;
  for (let n = 0; n < N; n++) weightSum += weights[n];
  if (weightSum === 0) return;
  for (let n = 0; n < N; n++) {
    if (weights[n] !== 0) dvalues[n] += (dloss * 2 * weights[n] * (values[n] - targets[n])) / weightSum;
  }
}

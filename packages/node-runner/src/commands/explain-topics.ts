// The step-by-step tables `horizon explain` prints: each topic runs its kernel on the GPU through the
// host API, beside the float64 reference, and lays out every intermediate quantity per token (or per
// sample for KTO), so a user can follow the computation by hand.

import { actionCounts, type Gpu, gae, gaeRef, kto, ktoRef, logistic, lossScales, policyLoss, policyLossRef, tokenPolicyLossRef } from '@horizon/kernels';

export interface Explained {
  lines: string[];
  /** Largest |GPU − reference| over the outputs, relative to the outputs' scale. */
  mismatch: number;
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const s = (Math.abs(x) < 5e-5 ? 0 : x).toFixed(4);
  return s === '-0.0000' ? '0.0000' : s;
}

/** Columns padded to width; the first `leftColumns` are left-aligned, the rest right-aligned. */
export function table(header: string[], rows: string[][], leftColumns = 0): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`.trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function mismatchOf(pairs: [ArrayLike<number>, ArrayLike<number>][]): number {
  let err = 0;
  let scale = 1e-30;
  for (const [a, b] of pairs) {
    for (let i = 0; i < b.length; i++) {
      err = Math.max(err, Math.abs(a[i] - b[i]));
      scale = Math.max(scale, Math.abs(b[i]));
    }
  }
  return err / Math.max(scale, 1);
}

export interface GaeExample {
  rewards: number[];
  values: number[];
  mask: number[];
  gamma: number;
  lambda: number;
  lambdaCritic?: number;
  /** Present: the sample was truncated and this is the value after its last token. */
  bootstrap?: number;
  tokensAfter?: number;
}

export async function explainGae(gpu: Gpu, e: GaeExample): Promise<Explained> {
  const T = e.rewards.length;
  const inputs = {
    rewards: Float32Array.from(e.rewards),
    values: Float32Array.from(e.values),
    actionMask: Uint32Array.from(e.mask),
    bootstrap: Float32Array.of(e.bootstrap ?? 0),
  };
  const options = {
    B: 1,
    T,
    gamma: e.gamma,
    lambda: e.lambda,
    lambdaCritic: e.lambdaCritic ?? e.lambda,
    terminal: [e.bootstrap === undefined ? 1 : 0],
    tokensAfter: [e.tokensAfter ?? 0],
  };
  const got = await gae(gpu, inputs, options);
  const ref = gaeRef(
    { ...inputs, terminal: options.terminal, tokensAfter: options.tokensAfter },
    { ...options, lambda: [e.lambda], lambdaCritic: [options.lambdaCritic] },
  );
  const rows = e.rewards.map((r, t) => {
    const act = e.mask[t] === 1;
    return [
      String(t),
      act ? 'action' : 'obs',
      fmt(r),
      act ? fmt(e.values[t]) : '—',
      act ? fmt(ref.deltas[t]) : '—',
      act ? fmt(got.advantages[t]) : '—',
      act ? fmt(ref.advantages[t]) : '—',
      act ? fmt(got.returns[t]) : '—',
      act ? fmt(ref.returns[t]) : '—',
    ];
  });
  const end = e.bootstrap === undefined ? 'terminal (value after the last action: 0)' : `truncated (bootstrap value ${fmt(e.bootstrap)})`;
  const mismatch = mismatchOf([
    [got.advantages, ref.advantages],
    [got.returns, ref.returns],
  ]);
  return {
    mismatch,
    lines: [
      'GAE, token level, skip-observation (docs/algorithms/ppo-gae.md §2): computed on the GPU beside the float64 reference',
      `  γ = ${e.gamma}, λ = ${e.lambda}, λ_critic = ${options.lambdaCritic}, end: ${end}${e.tokensAfter ? `, ${e.tokensAfter} tokens after (A scaled by (γλ)^${e.tokensAfter})` : ''}`,
      '  δ_t = r_t + (rewards on the observations up to the next action) + γ·V_next − V_t,  V_next = V of the next ACTION token',
      '  A_t = δ_t + γλ·A_next      R_t = A_t(λ_critic) + V_t (critic target)      observations: outside the chain, A = R = 0',
      '',
      ...table(['t', 'token', 'r_t', 'V_t', 'δ_t', 'A_t gpu', 'A_t ref', 'R_t gpu', 'R_t ref'], rows, 2),
      '',
      `  largest |gpu − ref|: ${mismatch.toExponential(1)} of the outputs' scale (float32 on the GPU, float64 reference)`,
    ],
  };
}

export interface PpoExample {
  logp: number[];
  oldLogp: number[];
  advantages: number[];
  mask: number[];
  epsLow: number;
  epsHigh: number;
  dualClip: number;
  dis: boolean;
}

export async function explainPpo(gpu: Gpu, e: PpoExample): Promise<Explained> {
  const T = e.logp.length;
  const kind = e.dis ? ('dis' as const) : ('ppo' as const);
  const inputs = {
    logp: Float32Array.from(e.logp),
    oldLogp: Float32Array.from(e.oldLogp),
    advantages: Float32Array.from(e.advantages),
    mask: Uint32Array.from(e.mask),
  };
  const params = { kind, epsLow: e.epsLow, epsHigh: e.epsHigh, dualClip: e.dis ? 0 : e.dualClip, B: 1, T };
  const got = await policyLoss(gpu, inputs, params);
  const ref = policyLossRef({ ...inputs, scales: lossScales(actionCounts(inputs.mask, 1, T), { mode: 'token-mean' }) }, params);
  const rows = e.logp.map((_, t) => {
    if (!e.mask[t]) return [String(t), 'masked', '—', '—', '—', '—', '—', '—', '—', '—'];
    const tok = tokenPolicyLossRef(e.logp[t], e.oldLogp[t], e.advantages[t], params);
    const state = tok.dual ? 'dual clip' : tok.low ? (e.dis ? 'masked low' : 'clipped low') : tok.high ? (e.dis ? 'masked high' : 'clipped high') : 'live';
    return [
      String(t),
      state,
      fmt(e.logp[t] - e.oldLogp[t]),
      fmt(tok.ratio),
      fmt(e.advantages[t]),
      fmt(got.perToken[t]),
      fmt(ref.perToken[t]),
      fmt(got.grad[t]),
      fmt(ref.grad[t]),
      '',
    ];
  });
  const mismatch = mismatchOf([
    [got.perToken, ref.perToken],
    [got.grad, ref.grad],
    [[got.loss], [ref.loss]],
  ]);
  const formula = e.dis
    ? [
        "  SAO's DIS: ρ = e^{ℓ−ℓ_roll}; w = ρ if 1−ε_low < ρ < 1+ε_high (strict) else 0; pg = −sg(w)·A·ℓ; dpg/dℓ = −w·A",
        `  band (${fmt(1 - e.epsLow)}, ${fmt(1 + e.epsHigh)}): tokens outside leave the gradient whatever the sign of A`,
      ]
    : [
        '  PPO: ρ = e^{ℓ−ℓ_old}; pg = max(−A·ρ, −A·clip(ρ, 1−ε_low, 1+ε_high))' + (e.dualClip ? `, then min(pg, −${e.dualClip}·A) where A < 0` : ''),
        '  dpg/dℓ = −A·ρ where the unclipped term wins, 0 where the clip (or dual clip) binds',
      ];
  return {
    mismatch,
    lines: [
      `Policy loss (${kind}, ${e.dis ? 'docs/algorithms/sao-dis.md §1' : 'docs/algorithms/ppo-gae.md §4'}): computed on the GPU beside the float64 reference`,
      `  ε_low = ${e.epsLow}, ε_high = ${e.epsHigh}${e.dis ? '' : `, dual clip ${e.dualClip || 'off'}`}; token-mean over ${ref.perToken.filter((_, t) => e.mask[t]).length} action tokens`,
      ...formula,
      '',
      ...table(['t', 'state', 'ℓ−ℓ_old', 'ρ', 'A', 'pg gpu', 'pg ref', 'grad gpu', 'grad ref', ''], rows, 2),
      '',
      `  loss (token-mean): gpu ${fmt(got.loss)}, ref ${fmt(ref.loss)}; low ${fmt(got.lowFraction)}, high ${fmt(got.highFraction)}${e.dis ? '' : `, dual ${fmt(got.dualFraction)}`} of action tokens`,
      `  largest |gpu − ref|: ${mismatch.toExponential(1)} of the outputs' scale`,
    ],
  };
}

export interface KtoExample {
  /** Per-sample Σ_t log π_θ of the matched completion. */
  logp: number[];
  refLogp: number[];
  /** Per-sample sums on the mismatched pair (x_b, y_{b+1}). */
  klLogp: number[];
  klRefLogp: number[];
  desirable: number[];
  beta: number;
  lambdaD: number;
  lambdaU: number;
}

export async function explainKto(gpu: Gpu, e: KtoExample): Promise<Explained> {
  const B = e.logp.length;
  const ones = new Uint32Array(B).fill(1);
  const inputs = {
    logp: Float32Array.from(e.logp),
    refLogp: Float32Array.from(e.refLogp),
    mask: ones,
    klLogp: Float32Array.from(e.klLogp),
    klRefLogp: Float32Array.from(e.klRefLogp),
    klMask: ones,
    desirable: Uint32Array.from(e.desirable),
  };
  const params = { B, T: 1, beta: e.beta, lambdaD: e.lambdaD, lambdaU: e.lambdaU };
  const got = await kto(gpu, inputs, params);
  const ref = ktoRef(inputs, params);
  const rows = e.logp.map((_, b) => {
    const u = e.desirable[b] ? e.beta * (ref.rewards[b] - ref.z0) : e.beta * (ref.z0 - ref.rewards[b]);
    return [
      String(b),
      e.desirable[b] ? 'desirable' : 'undesirable',
      fmt(ref.rewards[b]),
      fmt(e.klLogp[b] - e.klRefLogp[b]),
      fmt(u),
      fmt(logistic(u)),
      fmt(got.perSample[b]),
      fmt(ref.perSample[b]),
      fmt(got.grad[b]),
      fmt(ref.grad[b]),
    ];
  });
  const mismatch = mismatchOf([
    [got.perSample, ref.perSample],
    [got.grad, ref.grad],
    [
      [got.loss, got.z0],
      [ref.loss, ref.z0],
    ],
  ]);
  return {
    mismatch,
    lines: [
      "KTO (docs/algorithms/kto.md §1, TRL's loss): computed on the GPU beside the float64 reference",
      `  β = ${e.beta}, λ_D = ${e.lambdaD}, λ_U = ${e.lambdaU}; row b's KL pair is (x_b, y_{b+1 mod ${B}})`,
      '  r_b = Σ(ℓ − ℓ_ref);  kl_b the same on the mismatched pair;  z0 = max(0, mean_b kl_b), no gradient',
      '  u = β(r_b − z0) if desirable, β(z0 − r_b) if not;  L_b = λ·(1 − σ(u));  loss = mean_b L_b;  dloss/dℓ = −λβσ(u)(1−σ(u))/B · (±1)',
      '',
      ...table(['b', 'label', 'r_b', 'kl_b', 'u', 'σ(u)', 'L_b gpu', 'L_b ref', 'dL/dℓ gpu', 'dL/dℓ ref'], rows, 2),
      '',
      `  z0: gpu ${fmt(got.z0)}, ref ${fmt(ref.z0)};  loss: gpu ${fmt(got.loss)}, ref ${fmt(ref.loss)}`,
      `  largest |gpu − ref|: ${mismatch.toExponential(1)} of the outputs' scale`,
    ],
  };
}

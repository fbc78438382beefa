// Float64 reference for token-level GAE, written from the math of docs/algorithms/ppo-gae.md §2:
//
//   skip-observation (SAO eqs. 4–5): only action tokens (m = 1) form the Bellman chain; the last
//     token of one action links straight to the first token of the next; a reward sitting on an
//     observation token is carried back to the previous action token; values on observations are
//     never read. Rewards on observations before the first action have no action to go to.
//   δ_t = r_t + carry_t + γ·V_next − V_t           (V_next: value of the next action token, or at
//                                                   the end 0 if terminal, the bootstrap if truncated)
//   A_t = δ_t + γλ·A_next                            (policy advantages, λ per sample)
//   R̂_t = A^c_t + V_t,  A^c_t = δ_t + γλ_c·A^c_next  (critic targets with λ_critic: VC-PPO's decoupled λ)
//   A_t ← (γλ)^{tokensAfter}·A_t                     (CompactionRL eq. 14; the critic target keeps the
//                                                   uncorrected local return)
// Observation positions get A = R̂ = 0.
//
// Value convention (docs/algorithms/README.md §2): V[b, t] is read at the position whose logits predict token t, i.e. the
// value of the state just before emitting y_t.
//
// Shapes: rewards, values, mask [B, T]; terminal, bootstrap, tokensAfter, lambda, lambdaCritic [B].

export interface GaeRefInputs {
  rewards: ArrayLike<number>;
  values: ArrayLike<number>;
  actionMask: ArrayLike<number>;
  terminal?: ArrayLike<number>;
  bootstrap?: ArrayLike<number>;
  tokensAfter?: ArrayLike<number>;
}

export interface GaeRefOptions {
  B: number;
  T: number;
  gamma: number;
  /** λ per sample. */
  lambda: ArrayLike<number>;
  /** λ for critic targets per sample; default `lambda`. */
  lambdaCritic?: ArrayLike<number>;
}

export interface GaeRefResult {
  advantages: Float64Array;
  returns: Float64Array;
  /** δ_t at action tokens (observation rewards already carried in), 0 elsewhere: for explanations. */
  deltas: Float64Array;
}

export function gaeRef(inputs: GaeRefInputs, options: GaeRefOptions): GaeRefResult {
  const { B, T, gamma } = options;
  const { rewards: r, values: V, actionMask: m } = inputs;
  const advantages = new Float64Array(B * T);
  const returns = new Float64Array(B * T);
  const deltas = new Float64Array(B * T);
  for (let b = 0; b < B; b++) {
    const lam = options.lambda[b];
    const lamC = (options.lambdaCritic ?? options.lambda)[b];
    const terminal = inputs.terminal ? inputs.terminal[b] === 1 : true;
    const factor = (gamma * lam) ** (inputs.tokensAfter ? inputs.tokensAfter[b] : 0);
    let nextV = terminal ? 0 : (inputs.bootstrap?.[b] ?? 0);
    let nextA = 0;
    let nextAc = 0;
    let carry = 0;
    for (let t = T - 1; t >= 0; t--) {
      const i = b * T + t;
      if (m[i] !== 1) {
        carry += r[i];
        continue;
      }
      const delta = r[i] + carry + gamma * nextV - V[i];
      carry = 0;
      const A = delta + gamma * lam * nextA;
      const Ac = delta + gamma * lamC * nextAc;
      deltas[i] = delta;
      advantages[i] = factor * A;
      returns[i] = Ac + V[i];
      nextV = V[i];
      nextA = A;
      nextAc = Ac;
    }
  }
  return { advantages, returns, deltas };
}

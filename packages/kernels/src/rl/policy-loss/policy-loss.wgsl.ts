// Per-token bodies of the policy losses for the shared token-loss kernel (token-loss.wgsl.ts).
// Math and conventions: policy-loss.ref.ts. Hyperparameters: h0 = ε_low, h1 = ε_high, h2 = dual-clip c (0: off).
//
// Shapes: logp, oldLogp, advantages [B, T] f32.

import type { TokenLossSpec } from '../common/token-loss.wgsl.ts';
import type { PolicyLossKind } from './policy-loss.ref.ts';

const PPO: TokenLossSpec = {
  inputs: ['logp', 'oldLogp', 'advantages'],
  flags: ['low', 'high', 'dual'],
  body: /* wgsl */ `
      let a = advantages[i];
      let d = logp[i] - oldLogp[i];
      let ratio = exp(clamp(d, -20.0, 20.0));
      let l1 = -a * ratio;
      let l2 = -a * clamp(ratio, 1.0 - p.h0, 1.0 + p.h1);
      let clipped = l2 > l1;
      var value = max(l1, l2);
      var dvalue = select(-a * ratio, 0.0, clipped || abs(d) > 20.0);
      let low = select(0.0, 1.0, clipped && a < 0.0);
      let high = select(0.0, 1.0, clipped && a > 0.0);
      var dual = 0.0;
      if (p.h2 > 0.0 && a < 0.0 && value > -p.h2 * a) {
        value = -p.h2 * a;
        dvalue = 0.0;
        dual = 1.0;
      }`,
};

const DIS: TokenLossSpec = {
  inputs: ['logp', 'oldLogp', 'advantages'],
  flags: ['low', 'high'],
  body: /* wgsl */ `
      let a = advantages[i];
      let l = logp[i];
      let ratio = exp(clamp(l - oldLogp[i], -20.0, 20.0));
      let inBand = ratio > 1.0 - p.h0 && ratio < 1.0 + p.h1;
      let weight = select(0.0, ratio, inBand);
      let value = -weight * a * l;
      let dvalue = -weight * a;
      let low = select(0.0, 1.0, ratio <= 1.0 - p.h0);
      let high = select(0.0, 1.0, ratio >= 1.0 + p.h1);`,
};

export function policyLossSpec(kind: PolicyLossKind): TokenLossSpec {
  return kind === 'ppo' ? PPO : DIS;
}

// VC-PPO's value pretraining as PPO and SAO schedule it: critic-only iterations until the batch's
// explained variance reaches rl.criticWarmupTarget or rl.criticWarmupSteps iterations pass, whichever
// first; once over it stays over (the state the trainer checkpoints records when). And the order of
// SAO's steps on a minibatch: K critic steps, then the DIS policy step.

import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../envs/environment.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { UpdateContext } from './algorithm.ts';
import { WARMUP_ENDED_AT } from './critic-warmup.ts';
import { grpo } from './grpo.ts';
import { ppo } from './ppo.ts';
import { sao } from './sao.ts';

const trains = (updates: readonly { model: string }[]) => updates.map((u) => u.model);

describe('value pretraining', () => {
  it('stops at the first batch whose explained variance reaches the target, and stays stopped', () => {
    const recipe = resolveRecipe({ preset: 'add-vc-ppo' }).recipe;
    expect(recipe.rl).toMatchObject({ criticWarmupSteps: 20, criticWarmupTarget: 0.5 });
    const state: Record<string, JsonValue> = {};
    const at = (ev: number): UpdateContext => ({ metrics: { 'critic/explained_var': ev }, state });
    expect(trains(ppo.updates(recipe, 0, at(-0.3)))).toEqual(['critic']);
    expect(trains(ppo.updates(recipe, 1, at(0.49)))).toEqual(['critic']);
    expect(state).toEqual({});
    // The target is reached: this batch already trains the policy.
    expect(trains(ppo.updates(recipe, 2, at(0.5)))).toEqual(['critic', 'policy']);
    expect(state[WARMUP_ENDED_AT]).toBe(2);
    // A later batch whose explained variance dips does not restart the phase.
    expect(trains(ppo.updates(recipe, 3, at(0.1)))).toEqual(['critic', 'policy']);
    expect(state[WARMUP_ENDED_AT]).toBe(2);
  });

  it('without reaching the target it ends after rl.criticWarmupSteps iterations; target 1 is off', () => {
    const recipe = resolveRecipe({ preset: 'add-vc-ppo' }).recipe;
    const low = (state: Record<string, JsonValue>): UpdateContext => ({ metrics: { 'critic/explained_var': 0.1 }, state });
    expect(trains(ppo.updates(recipe, 19, low({})))).toEqual(['critic']);
    expect(trains(ppo.updates(recipe, 20, low({})))).toEqual(['critic', 'policy']);
    const off = resolveRecipe({ preset: 'add-vc-ppo', sets: ['rl.criticWarmupTarget=1'] }).recipe;
    const high: UpdateContext = { metrics: { 'critic/explained_var': 0.99 }, state: {} };
    expect(trains(ppo.updates(off, 5, high))).toEqual(['critic']);
    expect(high.state).toEqual({});
    // A batch with no explained variance (no critic metrics) keeps the phase going.
    expect(trains(ppo.updates(recipe, 5, { metrics: {}, state: {} }))).toEqual(['critic']);
  });
});

describe('SAO on one minibatch', () => {
  it('K critic steps on the same targets, then one DIS policy step', () => {
    const recipe = resolveRecipe({ preset: 'add-sao', sets: ['rl.criticWarmupSteps=0'] }).recipe;
    const updates = sao.updates(recipe, 0, { metrics: {}, state: {} });
    expect(trains(updates)).toEqual(['critic', 'critic', 'policy']);
    expect(updates[2].terms[0]).toEqual({ kind: 'dis', epsLow: 0.3, epsHigh: 5 });
    // rl.policyLoss chooses the other methods' surrogate; SAO is DIS whatever it says.
    const clip = resolveRecipe({ preset: 'add-sao', sets: ['rl.criticWarmupSteps=0', 'rl.policyLoss=ppo-clip'] }).recipe;
    expect(sao.updates(clip, 0)[2].terms[0].kind).toBe('dis');
    // GRPO + DIS: the shared policy update takes the recipe's surrogate.
    const grpoDis = resolveRecipe({ preset: 'add-grpo', sets: ['rl.policyLoss=dis', 'rl.disLow=0.2', 'rl.disHigh=3'] }).recipe;
    expect(grpo.updates(grpoDis, 0)[0].terms[0]).toEqual({ kind: 'dis', epsLow: 0.2, epsHigh: 3 });
  });

  it('freezes exactly the critic’s attention projections, and only when asked', () => {
    const names = [
      'transformer.wte.weight',
      'transformer.h.0.ln_1.weight',
      'transformer.h.0.attn.c_attn.weight',
      'transformer.h.0.attn.c_attn.bias',
      'transformer.h.0.attn.c_proj.weight',
      'transformer.h.0.attn.c_proj.bias',
      'transformer.h.0.mlp.c_fc.weight',
      'transformer.h.1.attn.c_attn.weight',
      'value_head.weight',
    ];
    const recipe = resolveRecipe({ preset: 'add-sao' }).recipe;
    expect(sao.frozenParameters?.(recipe, 'critic', names)).toEqual(names.filter((n) => n.includes('.attn.')));
    expect(sao.frozenParameters?.(recipe, 'policy', names)).toEqual([]);
    const unfrozen = resolveRecipe({ preset: 'add-sao', sets: ['sao.freezeCriticAttention=false'] }).recipe;
    expect(sao.frozenParameters?.(unfrozen, 'critic', names)).toEqual([]);
  });
});

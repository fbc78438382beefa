import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { type GroupEstimator, groupBaselinesRef } from './group-baselines.ref.ts';
import { groupBaselines } from './group-baselines.ts';

const rng = new SeededRandom(71);
const ESTIMATORS: GroupEstimator[] = ['grpo', 'dr-grpo', 'rloo'];

describe('group baselines', () => {
  for (const estimator of ESTIMATORS) {
    it(`${estimator}: GPU matches the float64 reference on interleaved groups of uneven sizes`, async () => {
      const gpu = await testGpu();
      const N = 103;
      const rewards = Float32Array.from({ length: N }, () => (rng.next() < 0.3 ? rng.int(0, 1) : rng.next() * 4 - 1));
      const groupIds = Uint32Array.from({ length: N }, () => rng.int(0, 20));
      const got = await groupBaselines(gpu, { rewards, groupIds }, { estimator });
      expect(got.advantages).toBeAllClose(groupBaselinesRef(rewards, groupIds, estimator), { atol: 2e-5, rtol: 1e-5 });
    });
  }

  it('hand-computed group of four: GRPO uses the sample std, RLOO the leave-one-out mean', async () => {
    const gpu = await testGpu();
    const rewards = Float32Array.of(1, 0, 0, 1);
    const groupIds = Uint32Array.of(7, 7, 7, 7);
    const std = Math.sqrt((4 * 0.25) / 3);
    expect((await groupBaselines(gpu, { rewards, groupIds }, { estimator: 'grpo' })).advantages).toBeAllClose(
      [0.5, -0.5, -0.5, 0.5].map((d) => d / (std + 1e-6)),
    );
    expect((await groupBaselines(gpu, { rewards, groupIds }, { estimator: 'dr-grpo' })).advantages).toBeAllClose([0.5, -0.5, -0.5, 0.5]);
    expect((await groupBaselines(gpu, { rewards, groupIds }, { estimator: 'rloo' })).advantages).toBeAllClose([1 - 1 / 3, -2 / 3, -2 / 3, 1 - 1 / 3]);
  });

  it('single-sample groups and identical rewards give exactly 0', async () => {
    const gpu = await testGpu();
    const rewards = Float32Array.of(0.7, 0.7, 0.7, 5, 0.1, 0.1);
    const groupIds = Uint32Array.of(0, 0, 0, 1, 2, 2);
    for (const estimator of ESTIMATORS) {
      const { advantages } = await groupBaselines(gpu, { rewards, groupIds }, { estimator });
      expect(advantages.every((a) => a === 0)).toBe(true);
    }
  });

  it('broadcasts onto action tokens only', async () => {
    const gpu = await testGpu();
    const got = await groupBaselines(
      gpu,
      { rewards: Float32Array.of(1, 0), groupIds: Uint32Array.of(3, 3), actionMask: Uint32Array.of(0, 1, 1, 1, 0, 1) },
      { estimator: 'dr-grpo', T: 3 },
    );
    expect(Array.from(got.tokenAdvantages ?? [])).toEqual([0, 0.5, 0.5, -0.5, 0, -0.5]);
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    await expect(groupBaselines(gpu, { rewards: Float32Array.of(1, Number.NaN), groupIds: Uint32Array.of(0, 0) }, { estimator: 'grpo' })).rejects.toThrow(
      /rewards\[1\] is NaN/,
    );
    await expect(groupBaselines(gpu, { rewards: Float32Array.of(1, 2), groupIds: Uint32Array.of(0) }, { estimator: 'grpo' })).rejects.toThrow(
      /groupIds holds 1/,
    );
    await expect(groupBaselines(gpu, { rewards: Float32Array.of(1), groupIds: Uint32Array.of(0) }, { estimator: 'grpo', eps: 2 })).rejects.toThrow(/eps/);
    await expect(groupBaselines(gpu, { rewards: Float32Array.of(1), groupIds: Uint32Array.of(0) }, { estimator: 'ppo' as 'grpo' })).rejects.toThrow(
      /estimator/,
    );
  });
});

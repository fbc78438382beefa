// checkRecipeFitsDevice: what the kernels and a device can run, decided before a run starts
// (docs/reliability.md §6). The numbers are SwiftShader's limits (`horizon doctor`) and REQUIRED_LIMITS.

import { REQUIRED_LIMITS } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { echo, jsonDepthExceeds, showValue } from '../errors.ts';
import { parameterLayout } from '../model/parameters.ts';
import { modelConfigs } from './checks.ts';
import { checkRecipeFitsDevice, type FitLimits, type FitOptions, recipeVocabSize } from './fits.ts';
import { PRESET_NAMES } from './presets.ts';
import { RecipeError, resolveRecipe } from './resolve.ts';

const SWIFTSHADER: FitLimits = { maxBufferSize: 2 ** 30, maxStorageBufferBindingSize: 2 ** 30, maxComputeWorkgroupsPerDimension: 65535 };
const HOST = { hostMemoryBytes: 8 * 2 ** 30, deviceInHostMemory: true };

function fits(sets: string[], limits: FitLimits = SWIFTSHADER, options = HOST) {
  const { recipe } = resolveRecipe({ preset: 'tiny', sets });
  return checkRecipeFitsDevice(recipe, recipeVocabSize(recipe), limits, options);
}

function refusal(sets: string[], limits: FitLimits = SWIFTSHADER, options = HOST): string {
  try {
    fits(sets, limits, options);
  } catch (error) {
    expect(error).toBeInstanceOf(RecipeError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error(`expected --set ${sets.join(' ')} to be refused`);
}

describe('checkRecipeFitsDevice', () => {
  it('every preset fits the smallest device Horizon accepts', () => {
    for (const preset of PRESET_NAMES) {
      const { recipe } = resolveRecipe({ preset });
      const footprint = checkRecipeFitsDevice(recipe, recipeVocabSize(recipe), REQUIRED_LIMITS, HOST);
      expect(footprint.deviceBytes).toBeLessThan(256 * 2 ** 20);
    }
  });

  it('a head wider than the attention kernels take names the field and what would fit', () => {
    expect(refusal(['model.policy.width=1024'])).toBe(
      'model.policy.width 1024 with 4 heads gives heads 256 wide, more than the 128 the attention kernels support; use model.policy.heads ≥ 8 or model.policy.width ≤ 512.',
    );
    expect(refusal(['model.critic.width=1024', 'model.critic.heads=2', 'model.critic.init=fresh'])).toMatch(/^model\.critic\.width 1024 with 2 heads/);
  });

  it('a parameter buffer over maxBufferSize (4096 × 64 layers) is refused without allocating it', () => {
    expect(refusal(['model.policy.width=4096', 'model.policy.heads=64', 'model.policy.layers=64'])).toBe(
      "model.policy.width: the policy's 12,888,489,984 parameters need a 48.0 GiB buffer, more than this device allows (maxBufferSize 1.0 GiB); lower model.policy.width.",
    );
  });

  it('a checkpoint file past WebCrypto’s 2 GiB digest (4096 × 1 layer: 3 GiB of AdamW moments) is refused', () => {
    expect(
      refusal(['model.policy.width=4096', 'model.policy.heads=64', 'model.policy.layers=1'], {
        ...SWIFTSHADER,
        maxBufferSize: 2 ** 32,
        maxStorageBufferBindingSize: 2 ** 32,
      }),
    ).toMatch(/^model\.policy\.width 4096 × 1 layers makes optimizer\.safetensors \(AdamW moments\) 3\.0 GiB, more than the 2 GiB a checkpoint file may hold/);
  });

  it('memory over the host budget names the biggest contributor; a hardware device keeps its buffers off the host', () => {
    const big = ['model.policy.width=1024', 'model.policy.heads=8', 'model.policy.layers=4'];
    expect(refusal(big, SWIFTSHADER, { hostMemoryBytes: 2 ** 30, deviceInHostMemory: true })).toMatch(
      /^model\.policy\.width: this recipe needs about [\d.]+ GiB of memory \(the software GPU keeps its buffers in host memory\), more than the 1\.0 GiB budget; lower model\.policy\.width\.$/,
    );
    const onSoftware = fits(big);
    const onHardware = fits(big, SWIFTSHADER, { ...HOST, deviceInHostMemory: false });
    expect(onHardware.hostBytes).toBeLessThan(onSoftware.hostBytes);
  });

  it('logits and attention buffers over the binding limit name the batch field', () => {
    expect(refusal(['rl.promptsPerIteration=4096', 'rl.groupSize=8', 'rl.minibatches=8'], REQUIRED_LIMITS)).toMatch(
      /^rl\.promptsPerIteration: scoring policy MLP activations \[B·T=\d+, 4D=128\] need a \d+ MiB buffer, more than this device allows \(maxStorageBufferBindingSize 128 MiB\); lower rl\.promptsPerIteration\.$/,
    );
  });

  it('counts every teacher distillation scores with, at its own size when the front end passes it', () => {
    const distill = (teachers: string, options: FitOptions = HOST) => {
      const route = teachers.includes(',') ? 'addition=1,subtraction=2' : 'addition=1,subtraction=1';
      const { recipe } = resolveRecipe({ preset: 'mix-distill', sets: [`distill.teachers=${teachers}`, `distill.route=${route}`] });
      return checkRecipeFitsDevice(recipe, recipeVocabSize(recipe), SWIFTSHADER, options);
    };
    const { recipe } = resolveRecipe({ preset: 'mix-distill' });
    const policy = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
    const one = distill('runs/a').deviceBytes;
    const two = distill('runs/a,runs/b').deviceBytes;
    // A second teacher the student's size adds its parameters, gradients and a scoring pass.
    expect(two - one).toBeGreaterThan(8 * parameterLayout(policy).totalSize);
    const wide = { ...policy, width: 256, heads: 4 };
    expect(distill('runs/a', { ...HOST, teachers: [wide] }).deviceBytes).toBeGreaterThan(
      one + 8 * parameterLayout(wide).totalSize - 8 * parameterLayout(policy).totalSize,
    );
    // A teacher too big for this host's budget is refused with the field that names it.
    const huge = { ...policy, width: 2048, heads: 16, layers: 12 };
    expect(() => distill('runs/a', { hostMemoryBytes: 2 ** 30, deviceInHostMemory: true, teachers: [huge] })).toThrow(/^distill\.teachers: /);
  });
});

describe('values in error messages', () => {
  it('echo caps a long value and counts it', () => {
    expect(echo('short')).toBe('short');
    expect(echo('x'.repeat(1000))).toBe(`${'x'.repeat(80)}…(1000 chars)`);
  });

  it('showValue names non-finite numbers (JSON.stringify says null) and never recurses deep', () => {
    expect(showValue(Number.POSITIVE_INFINITY)).toBe('Infinity (not a finite number)');
    expect(showValue(Number.NaN)).toBe('NaN (not a finite number)');
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(showValue(deep)).toBe('a deeply nested array');
    expect(jsonDepthExceeds(deep, 8)).toBe(true);
    expect(jsonDepthExceeds({ a: { b: { c: 1 } } }, 3)).toBe(false);
    expect(jsonDepthExceeds({ a: { b: { c: {} } } }, 3)).toBe(true);
  });
});

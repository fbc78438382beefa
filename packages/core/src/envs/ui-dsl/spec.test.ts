// UI-DSL specs: deterministic per seed, every kind in both ranges, OOD words and counters never
// trained, honest programs of about 20 characters that render, distinct sets and held-out exclusion.

import { describe, expect, it } from 'vitest';
import { simulate } from './simulator.ts';
import { distinctUiSpecs, everyUiSpec, honestProgram, specCount, specKey, specPrompt, UI_SPEC_KINDS, uiSpec } from './spec.ts';

describe('UI-DSL specs', () => {
  const train = Array.from({ length: 400 }, (_, i) => uiSpec(i * 7919 + 1, 'train'));
  const ood = Array.from({ length: 400 }, (_, i) => uiSpec(i * 7919 + 1, 'ood'));

  it('are deterministic per seed and cover every kind in both ranges', () => {
    expect(uiSpec(12345, 'train')).toEqual(uiSpec(12345, 'train'));
    for (const specs of [train, ood]) expect(new Set(specs.map((s) => s.kind))).toEqual(new Set(UI_SPEC_KINDS));
  });

  it('keep OOD words and counters out of the training range', () => {
    const trainWords = new Set(train.flatMap((s) => [s.button, s.message]).filter((w) => w !== ''));
    for (const s of ood) {
      expect(trainWords.has(s.button)).toBe(false);
      if (s.kind === 'count') expect(s.start).toBeGreaterThanOrEqual(10);
    }
    expect(Math.max(...train.filter((s) => s.kind === 'count').map((s) => s.start))).toBeLessThanOrEqual(9);
  });

  it('have honest programs of about 20 characters that do what the prompt says', () => {
    const lengths = [...train, ...ood].map((s) => honestProgram(s).length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(15);
    expect(Math.max(...train.map((s) => honestProgram(s).length))).toBeLessThanOrEqual(25);
    for (const s of [...train, ...ood]) {
      const trace = simulate(honestProgram(s), []);
      expect(trace.rendered, specPrompt(s)).toBe(true);
    }
  });

  it('enumerate every prompt a range can draw', () => {
    for (const [range, drawn] of [
      ['train', train],
      ['ood', ood],
    ] as const) {
      const all = new Set(everyUiSpec(range).map(specKey));
      expect(all.size).toBe(specCount(range));
      for (const s of drawn) expect(all.has(specKey(s)), specPrompt(s)).toBe(true);
    }
  });

  it('draw distinct sets and redraw away from an excluded set', () => {
    const { specs } = distinctUiSpecs(50, 'train', (i) => i + 1);
    expect(new Set(specs.map(specKey)).size).toBe(50);
    const excluded = new Set(specs.map(specKey));
    for (let seed = 1; seed <= 200; seed++) expect(excluded.has(specKey(uiSpec(seed, 'train', excluded)))).toBe(false);
    expect(() => distinctUiSpecs(specCount('ood') + 1, 'ood', (i) => i)).toThrow(/only/);
  });
});

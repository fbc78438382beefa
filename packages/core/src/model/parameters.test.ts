import { describe, expect, it } from 'vitest';
import type { GptConfig } from './config.ts';
import { initParameters } from './init.ts';
import { PARAMETER_ALIGNMENT, parameterLayout } from './parameters.ts';

const tiny: GptConfig = { vocabSize: 13, contextLength: 9, layers: 2, heads: 2, width: 8, head: 'lm' };

describe('GPT parameter layout', () => {
  it('names every parameter like nanoGPT and aligns each to 64 floats', () => {
    const layout = parameterLayout(tiny);
    expect(layout.entries.map((e) => e.name).slice(0, 4)).toEqual([
      'transformer.wte.weight',
      'transformer.wpe.weight',
      'transformer.h.0.ln_1.weight',
      'transformer.h.0.ln_1.bias',
    ]);
    expect(layout.entries.at(-1)?.name).toBe('lm_head.weight');
    for (const e of layout.entries) expect(e.offset % PARAMETER_ALIGNMENT).toBe(0);
    const D = 8;
    const perLayer = 2 * D + 3 * D * D + 3 * D + D * D + D + 2 * D + 4 * D * D + 4 * D + 4 * D * D + D;
    expect(layout.parameterCount).toBe(13 * D + 9 * D + 2 * perLayer + 2 * D + 13 * D);
  });

  it('the value head replaces lm_head with a [1, D] weight and a bias', () => {
    const names = parameterLayout({ ...tiny, head: 'value' }).entries.map((e) => e.name);
    expect(names).not.toContain('lm_head.weight');
    expect(names.slice(-2)).toEqual(['value_head.weight', 'value_head.bias']);
  });

  it('rejects a width that does not divide into heads, naming the fields', () => {
    expect(() => parameterLayout({ ...tiny, width: 9 })).toThrow(/model.width \(9\) must be a multiple of model.heads \(2\)/);
  });

  it('initialises from the seed: LayerNorm gains 1, biases 0, weights ~N(0, 0.02), reproducibly', () => {
    const layout = parameterLayout(tiny);
    const a = initParameters(layout, tiny.layers, 5);
    expect(initParameters(layout, tiny.layers, 5)).toEqual(a);
    expect(initParameters(layout, tiny.layers, 6)).not.toEqual(a);
    const get = (name: string) => {
      const e = layout.entries.find((x) => x.name === name)!;
      return a.subarray(e.offset, e.offset + e.size);
    };
    expect(Array.from(get('transformer.h.1.ln_2.weight'))).toEqual(new Array(8).fill(1));
    expect(Array.from(get('transformer.h.0.attn.c_attn.bias'))).toEqual(new Array(24).fill(0));
    const w = get('transformer.h.0.mlp.c_fc.weight');
    const std = Math.sqrt(w.reduce((s, x) => s + x * x, 0) / w.length);
    expect(std).toBeGreaterThan(0.015);
    expect(std).toBeLessThan(0.025);
  });
});

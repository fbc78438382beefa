// Seeded initialisation of the flat parameter buffer (GPT-2's scheme). The same seed gives the same
// weights on every runtime: values are drawn in layout order from one SeededRandom stream, f64 Box–
// Muller rounded to f32.

import { SeededRandom } from '@horizon/kernels';
import { INIT_STD, type ParameterLayout } from './parameters.ts';

export function initParameters(layout: ParameterLayout, layers: number, seed: number): Float32Array {
  const flat = new Float32Array(layout.totalSize);
  const rng = new SeededRandom(seed);
  const residualStd = INIT_STD / Math.sqrt(2 * layers);
  for (const e of layout.entries) {
    const view = flat.subarray(e.offset, e.offset + e.size);
    switch (e.init) {
      case 'ones':
        view.fill(1);
        break;
      case 'zeros':
        break;
      case 'normal':
      case 'residual-normal': {
        const std = e.init === 'normal' ? INIT_STD : residualStd;
        for (let i = 0; i < view.length; i++) view[i] = std * rng.normal();
        break;
      }
    }
  }
  return flat;
}

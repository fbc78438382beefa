// Which methods read which recipe fields: a field path or a section prefix → the algorithms that use
// it. A field listed here is only meaningful under those `rl.algorithm` values; the recipe checks
// refuse it under any other, naming the field and the methods that read it.

import type { AlgorithmName } from './schema.ts';

export const METHOD_FIELDS: Readonly<Record<string, readonly AlgorithmName[]>> = {
  distill: ['distill'],
};

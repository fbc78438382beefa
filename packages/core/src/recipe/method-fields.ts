// Which methods read which method-specific recipe fields: one table, keyed by a field path
// ("rl.criticLr") or a section ("kto", meaning every field under kto.*), each row naming the
// `rl.algorithm` values that read it. A field absent from the table is read by every method.
// The recipe stays one schema (fields.ts derives the CLI help and the web UI's controls from its
// JSON Schema, which has no unions), so this table is what makes "a field of another method" an
// error (method-field-check.ts) and what the help prints beside such a field.

import type { AlgorithmName } from './schema.ts';

export const METHOD_FIELDS: Readonly<Record<string, readonly AlgorithmName[]>> = {
  // The critic, its GAE targets and its warm-up (VC-PPO's value pretraining): the methods with a critic.
  'rl.lambda': ['ppo', 'sao'],
  'rl.lambdaCritic': ['ppo', 'sao'],
  'rl.lambdaAlpha': ['ppo', 'sao'],
  'rl.valueClip': ['ppo', 'sao'],
  'rl.criticLr': ['ppo', 'sao'],
  'rl.criticWarmupSteps': ['ppo', 'sao'],
  'rl.criticWarmupTarget': ['ppo', 'sao'],
  'rl.criticUpdates': ['ppo', 'sao'],
  'rl.truncation': ['ppo', 'sao'],
  sao: ['sao'],
  kto: ['kto'],
  distill: ['distill'],
  genac: ['genac'],
  opid: ['opid'],
};

/** The methods that read `path`, or undefined when every method does (the longest matching row wins). */
export function methodsReading(path: string): readonly AlgorithmName[] | undefined {
  let best: string | undefined;
  for (const key of Object.keys(METHOD_FIELDS))
    if ((path === key || path.startsWith(`${key}.`)) && (best === undefined || key.length > best.length)) best = key;
  return best === undefined ? undefined : METHOD_FIELDS[best];
}

/** One line for help texts: the method-specific fields grouped by who reads them, e.g. "rl.criticLr, … (ppo); kto.* (kto)". */
export function methodFieldsSummary(): string {
  const byReaders = new Map<string, string[]>();
  for (const [key, readers] of Object.entries(METHOD_FIELDS)) {
    const group = readers.join(', ');
    byReaders.set(group, [...(byReaders.get(group) ?? []), key.includes('.') ? key : `${key}.*`]);
  }
  return [...byReaders].map(([readers, keys]) => `${keys.join(', ')} (${readers})`).join('; ');
}

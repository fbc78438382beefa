// `horizon explain gae|ppo|kto`: one RL kernel's computation, step by step, on numbers from the
// command line or a small built-in example, computed on the GPU beside the float64 reference
// (explain-topics.ts builds the tables). Exit 1 when the GPU and the reference disagree.

import { echo } from '@horizon/core';
import { type Command, type CommandContext, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { type Explained, explainGae, explainKto, explainPpo, type GaeExample, type KtoExample, type PpoExample } from './explain-topics.ts';

const TOPICS = ['gae', 'ppo', 'kto'] as const;
type Topic = (typeof TOPICS)[number];

/** Relative disagreement beyond which the GPU result is reported as wrong (f32 against float64). */
const TOLERANCE = 1e-4;

/** Which flags each topic reads; any other flag is a usage error, not silently ignored. */
const TOPIC_FLAGS: Record<Topic, readonly string[]> = {
  gae: ['rewards', 'values', 'mask', 'gamma', 'lambda', 'lambda-critic', 'bootstrap', 'tokens-after'],
  ppo: ['logp', 'old-logp', 'advantages', 'mask', 'eps-low', 'eps-high', 'dual-clip', 'dis'],
  kto: ['logp', 'ref-logp', 'kl-logp', 'kl-ref-logp', 'labels', 'beta', 'lambda-d', 'lambda-u'],
};

// Built-in examples: an agent turn with a tool observation, the slime dual-clip golden plus a live
// and a low-clipped token, and a batch of four with KTO's mismatched pairs.
const GAE_EXAMPLE: GaeExample = {
  rewards: [0, 0, 0, 0, 0, 0, 0, 1],
  values: [0.2, 0.3, 0, 0, 0.5, 0.6, 0, 0.8],
  mask: [1, 1, 0, 0, 1, 1, 0, 1],
  gamma: 1,
  lambda: 0.95,
};
const PPO_EXAMPLE: PpoExample = {
  logp: [Math.log(2), Math.log(2), Math.log(0.5), -1.05, -2.3],
  oldLogp: [0, 0, 0, -1, -1.6],
  advantages: [2, -2, 2, 0.5, -1],
  mask: [1, 1, 1, 1, 1],
  epsLow: 0.2,
  epsHigh: 0.2,
  dualClip: 1.5,
  dis: false,
};
const KTO_EXAMPLE: KtoExample = {
  logp: [-12.1, -20.4, -8.3, -15.2],
  refLogp: [-12.9, -19.6, -8.8, -15.0],
  klLogp: [-25.0, -9.1, -16.2, -13.0],
  klRefLogp: [-25.3, -9.4, -16.1, -13.4],
  desirable: [1, 0, 1, 0],
  beta: 0.1,
  lambdaD: 1,
  lambdaU: 1,
};

const flag = (description: string, valueName = 'x,y,…') => ({ type: 'string' as const, description, valueName });

export const explain: Command = {
  name: 'explain',
  summary: 'print an RL kernel step by step (GAE, PPO/DIS loss, KTO) on your numbers, GPU beside the float64 reference',
  positionals: '<gae|ppo|kto>',
  flags: {
    rewards: flag('gae: token rewards r_t'),
    values: flag('gae: critic values V_t'),
    mask: flag('gae, ppo: action mask, 1 = action token, 0 = observation', '0|1,…'),
    gamma: flag('gae: discount γ in [0, 1]', 'γ'),
    lambda: flag('gae: GAE λ in [0, 1]', 'λ'),
    'lambda-critic': flag('gae: λ for the critic targets (default λ)', 'λ'),
    bootstrap: flag('gae: the sample was truncated; value after its last token', 'V'),
    'tokens-after': flag('gae: compaction, tokens generated after this segment', 'n'),
    logp: flag('ppo: log π_θ per token; kto: Σ log π_θ per sample'),
    'old-logp': flag('ppo: log π_old (or the rollout log-probs with --dis) per token'),
    advantages: flag('ppo: advantages A_t'),
    'eps-low': flag('ppo: ε_low (default 0.2)', 'ε'),
    'eps-high': flag('ppo: ε_high (default 0.2)', 'ε'),
    'dual-clip': flag('ppo: dual-clip c > 1 (0 = off)', 'c'),
    dis: { type: 'boolean', description: "ppo: SAO's DIS band mask instead of the PPO clip" },
    'ref-logp': flag('kto: Σ log π_ref per sample'),
    'kl-logp': flag('kto: Σ log π_θ on each mismatched pair (x_b, y_{b+1})'),
    'kl-ref-logp': flag('kto: Σ log π_ref on each mismatched pair'),
    labels: flag('kto: 1 desirable, 0 undesirable, per sample', '0|1,…'),
    beta: flag('kto: β (default 0.1)', 'β'),
    'lambda-d': flag('kto: λ_D (default 1)', 'λ'),
    'lambda-u': flag('kto: λ_U (default 1)', 'λ'),
  },
  async run(ctx) {
    const topic = parseTopic(ctx.positionals);
    const stray = Object.keys(ctx.flags).filter((name) => ctx.flags[name] !== undefined && !TOPIC_FLAGS[topic].includes(name));
    if (stray.length > 0)
      throw new UsageError(`--${stray[0]} does not apply to "explain ${topic}" (it reads ${TOPIC_FLAGS[topic].map((f) => `--${f}`).join(', ')}).`);
    const gpu = await acquireGpu();
    try {
      const explained = await explainTopic(gpu, topic, ctx);
      for (const line of explained.lines) ctx.out(line);
      if (explained.mismatch > TOLERANCE) {
        ctx.err(`horizon explain: the GPU result differs from the reference by ${explained.mismatch.toExponential(1)} (more than ${TOLERANCE}).`);
        return EXIT.failed;
      }
      return EXIT.ok;
    } catch (error) {
      // The host APIs reject bad values with a RangeError naming the argument: a usage problem here.
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    } finally {
      gpu.destroyDevice();
    }
  },
};

function parseTopic(positionals: string[]): Topic {
  if (positionals.length !== 1 || !TOPICS.includes(positionals[0] as Topic)) {
    throw new UsageError(`say what to explain: one of ${TOPICS.join(', ')}${positionals.length ? `, not "${echo(positionals.join(' '))}"` : ''}.`);
  }
  return positionals[0] as Topic;
}

async function explainTopic(gpu: Awaited<ReturnType<typeof acquireGpu>>, topic: Topic, { flags }: CommandContext): Promise<Explained> {
  const list = (name: string, fallback: number[]) => (flags[name] === undefined ? fallback : parseList(name, flags[name] as string));
  const num = (name: string, fallback: number) => (flags[name] === undefined ? fallback : parseNumber(name, flags[name] as string));
  const mask = (name: string, fallback: number[]) => (flags[name] === undefined ? fallback : parseMask(name, flags[name] as string));
  const useExample = !TOPIC_FLAGS[topic].some((name) => ['rewards', 'logp'].includes(name) && flags[name] !== undefined);
  if (topic === 'gae') {
    const e = useExample ? GAE_EXAMPLE : { rewards: [], values: [], mask: [], gamma: 1, lambda: 1 };
    const rewards = list('rewards', e.rewards);
    const example: GaeExample = {
      rewards,
      values: list('values', useExample ? e.values : rewards.map(() => 0)),
      mask: mask('mask', useExample ? e.mask : rewards.map(() => 1)),
      gamma: num('gamma', e.gamma),
      lambda: num('lambda', e.lambda),
    };
    if (flags['lambda-critic'] !== undefined) example.lambdaCritic = num('lambda-critic', example.lambda);
    if (flags.bootstrap !== undefined) example.bootstrap = num('bootstrap', 0);
    if (flags['tokens-after'] !== undefined) example.tokensAfter = num('tokens-after', 0);
    sameLength({ rewards: example.rewards, values: example.values, mask: example.mask });
    return explainGae(gpu, example);
  }
  if (topic === 'ppo') {
    const e = useExample ? PPO_EXAMPLE : { ...PPO_EXAMPLE, logp: [], oldLogp: [], advantages: [], mask: [] };
    const logp = list('logp', e.logp);
    const example: PpoExample = {
      logp,
      oldLogp: list('old-logp', e.oldLogp.length ? e.oldLogp : logp.map(() => 0)),
      advantages: list('advantages', e.advantages.length ? e.advantages : logp.map(() => 1)),
      mask: mask('mask', e.mask.length ? e.mask : logp.map(() => 1)),
      epsLow: num('eps-low', e.epsLow),
      epsHigh: num('eps-high', e.epsHigh),
      dualClip: num('dual-clip', flags.dis ? 0 : e.dualClip),
      dis: flags.dis === true,
    };
    sameLength({ logp: example.logp, 'old-logp': example.oldLogp, advantages: example.advantages, mask: example.mask });
    return explainPpo(gpu, example);
  }
  const e = useExample ? KTO_EXAMPLE : { ...KTO_EXAMPLE, logp: [], refLogp: [], klLogp: [], klRefLogp: [], desirable: [] };
  const logp = list('logp', e.logp);
  const example: KtoExample = {
    logp,
    refLogp: list('ref-logp', e.refLogp.length ? e.refLogp : logp.map(() => 0)),
    klLogp: list('kl-logp', e.klLogp.length ? e.klLogp : logp.map(() => 0)),
    klRefLogp: list('kl-ref-logp', e.klRefLogp.length ? e.klRefLogp : logp.map(() => 0)),
    desirable: mask('labels', e.desirable.length ? e.desirable : logp.map(() => 1)),
    beta: num('beta', e.beta),
    lambdaD: num('lambda-d', e.lambdaD),
    lambdaU: num('lambda-u', e.lambdaU),
  };
  sameLength({ logp: example.logp, 'ref-logp': example.refLogp, 'kl-logp': example.klLogp, 'kl-ref-logp': example.klRefLogp, labels: example.desirable });
  return explainKto(gpu, example);
}

function parseNumber(name: string, text: string): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x)) throw new UsageError(`--${name} must be a number, got "${echo(text)}".`);
  return x;
}

function parseList(name: string, text: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  const values = parts.map(Number);
  const bad = parts.findIndex((s, i) => s === '' || !Number.isFinite(values[i]));
  if (bad >= 0) throw new UsageError(`--${name} must be comma-separated numbers; item ${bad + 1} is "${echo(parts[bad])}".`);
  return values;
}

/** A 0/1 list: a mask (or KTO labels) is a choice per token, and a 0.5 would be silently read as 0 or 1. */
function parseMask(name: string, text: string): number[] {
  const values = parseList(name, text);
  const bad = values.findIndex((v) => v !== 0 && v !== 1);
  const meaning = name === 'labels' ? '1 = desirable, 0 = undesirable' : '1 = action token, 0 = observation';
  if (bad >= 0) throw new UsageError(`--${name} must be 0s and 1s (${meaning}); item ${bad + 1} is ${values[bad]}.`);
  return values;
}

function sameLength(lists: Record<string, number[]>): void {
  const [first, ...rest] = Object.entries(lists);
  if (first[1].length === 0) throw new UsageError(`--${first[0]} needs at least one value.`);
  for (const [name, values] of rest) {
    if (values.length !== first[1].length) throw new UsageError(`--${name} has ${values.length} values but --${first[0]} has ${first[1].length}.`);
  }
}

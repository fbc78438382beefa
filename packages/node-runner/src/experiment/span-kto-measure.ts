// One seed of the span-kto report (reports/span-kto.ts), as the implicit-feedback source trains:
// an SFT policy on the scripted demonstrations; the scripted user's rates fitted so that the SFT
// policy's feedback has the source's mix; one fixed log of the SFT policy's sampled dialogues,
// labelled per turn by the feedback verifier; then each offline method (span-KTO, RW-SFT at neutral
// weight 0.8 and 0, SFT) trained from the same SFT weights on the same log in the same minibatch
// order; and every policy, the SFT one included, evaluated greedily on the same held-out dialogues
// against the same user. The pieces are core's (docs/algorithms/kto.md §5); this file only strings
// them together and counts.
//
// Shape legend:  B rows · T positions

import {
  AdamW,
  CharTokenizer,
  collectRollouts,
  DIALOG_VOCABULARY,
  type DialogConfig,
  DialogFeedbackEnv,
  type DialogTurnRecord,
  dialogSftExample,
  type FeedbackMix,
  type FeedbackRates,
  feedbackMix,
  fitFeedbackRates,
  Generator,
  Gpt,
  type GptConfig,
  GpuSampler,
  type OfflineSpanMethod,
  OfflineSpanTrainer,
  type OptimizerOptions,
  type Sample,
  Scorer,
  SftStepper,
  SOURCE_SPAN_KTO,
  sampleDialog,
  sftBatch,
  spanLog,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';

const tokenizer = new CharTokenizer(DIALOG_VOCABULARY);
/** The dialogues of the kto page's measurement: 2 requests, 1 retry, operands 0–9; 48 positions hold the longest. */
export const SPAN_KTO_DIALOG = { rounds: 2, maxRetries: 1, maxOperand: 9 } as const;
const CONTEXT = 48;
const MODEL: GptConfig = { vocabSize: tokenizer.vocabSize, contextLength: CONTEXT, layers: 1, heads: 2, width: 32, head: 'lm' };
const SFT_OPTIONS: OptimizerOptions = { lr: 3e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 1 };
// Offline steps are gentler: RW-SFT at neutral weight 0 trains on about two thanked turns a
// minibatch, and at lr 1e-3 Adam's normalised steps on so few tokens raised the log's loss
// (docs/algorithms/kto.md §5).
const OFFLINE_OPTIONS: OptimizerOptions = { ...SFT_OPTIONS, lr: 3e-4 };

/** The offline methods, by arm name, in the order the page lists them. */
export const SPAN_KTO_METHODS: Readonly<Record<string, OfflineSpanMethod>> = {
  'span-kto': SOURCE_SPAN_KTO,
  // The source's best RW-SFT (w_pos 1.2, w_neu 1, w_neg 0.8), and the same with the rejected turns dropped.
  'rw-sft-0.8': { kind: 'rw-sft', weights: { good: 1.2, neutral: 1, bad: 0.8 } },
  sft: { kind: 'sft' },
  'rw-sft-0': { kind: 'rw-sft', weights: { good: 1.2, neutral: 1, bad: 0 } },
};
/** The policy every method starts from, evaluated untrained. */
export const SFT_POLICY_ARM = 'sft-policy';

export interface SpanKtoSizes {
  sftSteps: number;
  sftBatch: number;
  /** Dialogues per fit of the user's rates (two fits). */
  fitDialogues: number;
  /** Dialogues in the fixed log. */
  logDialogues: number;
  offlineSteps: number;
  /** Dialogues per offline minibatch. */
  minibatch: number;
  /** Held-out dialogues each policy is evaluated on. */
  evalDialogues: number;
}

export const SPAN_KTO_SIZES: SpanKtoSizes = {
  sftSteps: 300,
  sftBatch: 16,
  fitDialogues: 256,
  logDialogues: 512,
  // Five passes over the log.
  offlineSteps: 80,
  minibatch: 32,
  evalDialogues: 500,
};

/** What a policy's held-out dialogues measure (a type, so that it is a Record<string, number> too). */
export type DialogScores = {
  /** Share of requests whose last answer (after any retry) is right. */
  solveRate: number;
  /** Share of assistant turns whose answer is right. */
  accuracy: number;
  /** Share of assistant turns that answer a request the user asked again. */
  retryRatio: number;
  /** Share of assistant turns the user rejected. */
  negative: number;
};

export interface SpanKtoSeed {
  /** Per arm: the held-out scores. */
  arms: Record<string, DialogScores>;
  /** The SFT policy at τ = 1: its fitted user's rates and the fixed log's feedback mix. */
  log: { rates: FeedbackRates; mix: FeedbackMix; turns: number };
  /** Per method: its minibatch loss at the first and the last offline step. */
  losses: Record<string, { first: number; last: number }>;
}

/** Share of requests whose last answer is right: a request's turns are its round's records, the retry last. */
export function solveRate(dialogues: readonly (readonly DialogTurnRecord[])[]): number {
  let requests = 0;
  let solved = 0;
  for (const records of dialogues) {
    const last = new Map<number, DialogTurnRecord>();
    for (const r of records) last.set(r.round, r);
    for (const r of last.values()) {
      requests++;
      if (r.correct) solved++;
    }
  }
  return requests > 0 ? solved / requests : Number.NaN;
}

export function dialogScores(dialogues: readonly (readonly DialogTurnRecord[])[]): DialogScores {
  const mix = feedbackMix(dialogues);
  return { solveRate: solveRate(dialogues), accuracy: mix.accuracy, retryRatio: mix.retryRatio, negative: mix.negative };
}

/** Dialogue seeds of one purpose, disjoint across purposes and report seeds (a dialogue is a pure function of its seed). */
const dialogueSeed = (seed: number, purpose: 'sft' | 'fit' | 'log', i: number) => seed * 10_000_000 + { sft: 0, fit: 5_000_000, log: 7_000_000 }[purpose] + i;
/** The held-out dialogues: the same for every report seed, and no seed any other purpose draws. */
const HELD_OUT_SEED = 900_000_000;

async function talk(policy: Gpt, config: DialogConfig, seeds: readonly number[], temperature: number, stream: number): Promise<Sample[]> {
  const generator = new Generator(policy);
  try {
    const sampler = new GpuSampler(generator, tokenizer, { temperature, topK: 0 }, 1);
    sampler.reseed(2026, stream);
    const requests = seeds.map((seed, i) => ({ env: new DialogFeedbackEnv(config), seed, rolloutId: i, groupId: i }));
    const maxTurns = new DialogFeedbackEnv(config).maxTurns;
    return await collectRollouts(requests, tokenizer, sampler, { contextLength: CONTEXT, maxNewTokens: 3, maxTurns });
  } finally {
    generator.destroy();
  }
}

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** Runs one seed of the report: SFT, the log, every method, every evaluation. */
export async function measureSpanKto(gpu: Gpu, seed: number, sizes: SpanKtoSizes = SPAN_KTO_SIZES): Promise<SpanKtoSeed> {
  const heldOut = range(sizes.evalDialogues, (i) => HELD_OUT_SEED + i);
  const evaluate = async (policy: Gpt, config: DialogConfig) => dialogScores((await talk(policy, config, heldOut, 0, 3)).map(sampleDialog));

  // The SFT policy; the demonstrations' user is never shown to it as feedback (its text is an observation).
  const sft = Gpt.init(gpu, MODEL, seed, 'sft');
  const sftOptimizer = new AdamW(sft);
  const stepper = new SftStepper(gpu, sft, sftOptimizer);
  let sftWeights: Float32Array;
  let log: ReturnType<typeof spanLog>;
  let refLogp: Float32Array;
  let rates: FeedbackRates;
  let mix: FeedbackMix;
  const arms: Record<string, DialogScores> = {};
  try {
    const demoConfig: DialogConfig = { ...SPAN_KTO_DIALOG, rates: fitFeedbackRates(0.5) };
    for (let step = 0; step < sizes.sftSteps; step++) {
      const examples = range(sizes.sftBatch, (i) => dialogSftExample(dialogueSeed(seed, 'sft', step * sizes.sftBatch + i), demoConfig));
      await stepper.step(sftBatch(examples, tokenizer, tokenizer.eosId, tokenizer.padId, CONTEXT), SFT_OPTIONS);
    }
    // The user's rates depend on the policy's accuracy and its accuracy over turns on the rates
    // (retries follow rejections), so fit twice from an even guess.
    rates = fitFeedbackRates(0.5);
    for (let round = 0; round < 2; round++) {
      const seeds = range(sizes.fitDialogues, (i) => dialogueSeed(seed, 'fit', round * sizes.fitDialogues + i));
      rates = fitFeedbackRates(feedbackMix((await talk(sft, { ...SPAN_KTO_DIALOG, rates }, seeds, 1, 1)).map(sampleDialog)).accuracy);
    }
    const config: DialogConfig = { ...SPAN_KTO_DIALOG, rates };
    const samples = await talk(
      sft,
      config,
      range(sizes.logDialogues, (i) => dialogueSeed(seed, 'log', i)),
      1,
      2,
    );
    mix = feedbackMix(samples.map(sampleDialog));
    const verifier = new DialogFeedbackEnv(config).verifier;
    const labels = samples.map(
      (s) =>
        verifier.score({ seed: s.seed, prompt: s.prompt, turns: s.turns, status: s.status === 'completed' ? 'completed' : 'truncated', info: s.meta }).spans ??
        [],
    );
    log = spanLog(samples, labels, tokenizer.padId, CONTEXT);
    refLogp = await new Scorer(gpu).contextLogp(sft, log, 1);
    sftWeights = await sft.readParameters();
    arms[SFT_POLICY_ARM] = await evaluate(sft, config);
  } finally {
    stepper.destroy();
    sftOptimizer.destroy();
    sft.destroy();
  }

  const losses: SpanKtoSeed['losses'] = {};
  for (const [name, method] of Object.entries(SPAN_KTO_METHODS)) {
    const policy = Gpt.fromWeights(gpu, MODEL, sftWeights, name);
    const optimizer = new AdamW(policy);
    try {
      const trainer = new OfflineSpanTrainer(gpu, policy, optimizer, log, method, refLogp);
      let first = Number.NaN;
      let last = Number.NaN;
      for (let step = 0; step < sizes.offlineSteps; step++) {
        // One fixed order of minibatches over the log (its rows are in random problem order), the same for every method.
        const indices = range(sizes.minibatch, (i) => (step * sizes.minibatch + i) % log.B);
        last = (await trainer.step(indices, OFFLINE_OPTIONS)).loss;
        if (step === 0) first = last;
      }
      losses[name] = { first, last };
      arms[name] = await evaluate(policy, { ...SPAN_KTO_DIALOG, rates });
    } finally {
      optimizer.destroy();
      policy.destroy();
    }
  }
  return { arms, log: { rates, mix, turns: mix.turns }, losses };
}

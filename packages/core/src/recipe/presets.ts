// Named starting points. Each preset is a partial recipe over the schema defaults (which are
// add-ppo), so a preset lists only what it changes. The numbers are placeholders to tune
// (docs/experiments.md records the tuning); change them here and nowhere else.

import type { RecipeInput } from './schema.ts';

export interface Preset {
  /** One line for `horizon train --help` and the UI's preset picker. */
  doc: string;
  recipe: RecipeInput;
}

export const PRESETS = {
  'add-ppo': {
    doc: 'addition, PPO with a critic and token-level GAE: the schema defaults, 4 update epochs per iteration',
    recipe: { name: 'add-ppo' },
  },
  'add-ppo-fast': {
    doc: 'addition, add-ppo with one update epoch per iteration at lr 5e-4 for 160 iterations (the default: under 3 minutes on 2 CPU cores)',
    // A quarter of add-ppo's optimizer steps (4 per iteration, not 16): the update was 81–84% of an
    // iteration. Over 3 seeds its held-out success stays within add-ppo's seed spread
    // (docs/experiments.md, 2026-12-03).
    recipe: { name: 'add-ppo-fast', rl: { epochs: 1, policyLr: 5e-4, iterations: 160 } },
  },
  'add-grpo': {
    doc: 'addition, GRPO: group z-score advantages, KL (k3) in the loss, no critic',
    recipe: {
      name: 'add-grpo',
      rl: { algorithm: 'grpo', promptsPerIteration: 32, groupSize: 4, klPlacement: 'loss', klEstimator: 'k3', klCoef: 0.04 },
    },
  },
  'add-dr-grpo': {
    doc: 'addition, Dr.GRPO: GRPO without the std division, responses summed over a constant length (seq-mean-token-sum-norm)',
    recipe: {
      name: 'add-dr-grpo',
      rl: {
        algorithm: 'dr-grpo',
        promptsPerIteration: 32,
        groupSize: 4,
        lossAggregation: 'seq-mean-token-sum-norm',
        klPlacement: 'loss',
        klEstimator: 'k3',
        klCoef: 0.04,
      },
    },
  },
  'add-rloo': {
    doc: 'addition, RLOO: leave-one-out baselines, KL (k1) in the reward, no critic',
    recipe: {
      name: 'add-rloo',
      rl: { algorithm: 'rloo', promptsPerIteration: 32, groupSize: 4, klPlacement: 'reward', klEstimator: 'k1' },
    },
  },
  'add-kto': {
    doc: "addition, KTO: the policy's own rollouts labelled by the verifier (exact sum = desirable), TRL's loss against the SFT reference",
    // About 1 rollout in 8 is right after the warm start; TRL's advice for unbalanced data is
    // λ_D·n_D / (λ_U·n_U) in [1, 4/3]. With λ_U = 1, nine undesirable rollouts in ten pushed down
    // whatever the policy sampled: held-out 12.0% → 0.0% in 15 tiny iterations (docs/algorithms/kto.md §3).
    recipe: {
      name: 'add-kto',
      rl: { algorithm: 'kto', promptsPerIteration: 64, klCoef: 0, epochs: 2 },
      kto: { undesirableWeight: 0.15 },
    },
  },
  'add-sao': {
    doc: 'addition, SAO: critic + token-level GAE with length-adaptive λ, DIS against π_roll, 2 critic steps per policy step, frozen critic attention, one pass per batch',
    recipe: {
      name: 'add-sao',
      rl: {
        algorithm: 'sao',
        policyLoss: 'dis',
        disLow: 0.3,
        disHigh: 5,
        criticUpdates: 2,
        lambdaAlpha: 1.5,
        lambdaCritic: 1,
        epochs: 1,
        minibatches: 1,
        klCoef: 0,
        criticWarmupSteps: 10,
      },
      sao: { freezeCriticAttention: true },
    },
  },
  'add-vc-ppo': {
    doc: 'addition, VC-PPO: PPO after value pretraining (critic only until explained variance 0.5, at most 20 iterations), length-adaptive λ for the actor, λ_critic = 1',
    recipe: {
      name: 'add-vc-ppo',
      rl: { algorithm: 'ppo', criticWarmupSteps: 20, criticWarmupTarget: 0.5, lambdaAlpha: 1.5, lambdaCritic: 1 },
    },
  },
  tiny: {
    doc: 'CI-sized PPO: the default task and model, a shorter warm start and 15 iterations (under a minute on two CPU cores)',
    recipe: {
      name: 'tiny',
      model: { contextLength: 16 },
      sft: { steps: 300 },
      rl: { iterations: 15, criticWarmupSteps: 0 },
      eval: { interval: 5, heldOutSize: 200, oodSize: 20 },
      checkpoint: { interval: 5 },
    },
  },
  'mix-add-expert': {
    doc: 'an addition expert that can teach a mixed student: PPO on the mix task with no subtraction (the mix’s vocabulary)',
    recipe: { name: 'mix-add-expert', task: { env: 'mix', mix: { subtractionShare: 0 } } },
  },
  'mix-sub-expert': {
    doc: 'a subtraction expert that can teach a mixed student: PPO on the mix task with subtraction only',
    recipe: { name: 'mix-sub-expert', task: { env: 'mix', mix: { subtractionShare: 1 } } },
  },
  'add-distill': {
    doc: 'addition, on-policy distillation from one teacher run (--set distill.teachers=runs/a): the teacher scores every sampled token',
    recipe: {
      name: 'add-distill',
      rl: { algorithm: 'distill', promptsPerIteration: 64, klCoef: 0 },
    },
  },
  'mix-distill': {
    doc: 'addition and subtraction, one student merged from two experts (--set distill.teachers=runs/add,runs/sub), each prompt routed by its task',
    recipe: {
      name: 'mix-distill',
      task: { env: 'mix' },
      rl: { algorithm: 'distill', promptsPerIteration: 64, klCoef: 0 },
      distill: { route: 'addition=1,subtraction=2' },
    },
  },
  'add-genac': {
    doc: 'addition, GenAC: PPO whose baseline is a generative critic that writes a reasoning and a value digit 0–10, trained by SFT on Monte-Carlo values, then REINFORCE',
    // 8 rollouts per prompt: each prompt's Monte-Carlo value (its group's mean reward) is the critic's target.
    recipe: {
      name: 'add-genac',
      rl: { algorithm: 'genac', promptsPerIteration: 32, groupSize: 8, minibatches: 4 },
    },
  },
  'hidden-ppo': {
    doc: 'hidden-test-fs with the hack path closed (.eval/ denied): PPO on a 2-layer, width-32 policy at a 192-token context, multi-turn SFT demonstrations first',
    recipe: {
      name: 'hidden-ppo',
      task: { env: 'hidden-test-fs' },
      model: { contextLength: 192 },
      sft: { steps: 400, batchSize: 16 },
      // 16 prompts: at T = 192, 32 rows take ~360 MiB in all (recipe/fits.ts), past the 256 MiB
      // of the smallest device. The verifier grades the files at the turn limit, so a cut rollout's
      // reward is final: bootstrapping on top paid running out the clock (docs/experiments.md,
      // 2026-12-04: 14% → 99.7% truncated rollouts in 60 iterations).
      rl: { promptsPerIteration: 16, maxNewTokens: 32, maxTurns: 10, truncation: 'terminal' },
      eval: { heldOutSize: 64, oodSize: 32 },
    },
  },
  'hidden-hack-ppo': {
    doc: 'hidden-test-fs with the hack path open (.eval/f.js readable, copying it passes): hidden-ppo otherwise, to watch the hack rate under RL without a guard',
    recipe: {
      name: 'hidden-hack-ppo',
      task: { env: 'hidden-test-fs', hiddenTestFs: { hackOpen: true } },
      model: { contextLength: 192 },
      sft: { steps: 400, batchSize: 16 },
      rl: { promptsPerIteration: 16, maxNewTokens: 32, maxTurns: 10, truncation: 'terminal' },
      eval: { heldOutSize: 64, oodSize: 32 },
    },
  },
  'stream-ppo': {
    doc: 'long-stream with compaction at a 64-token context: PPO on streams of 7–12 digits (3–6 windows), the policy writes and trains its summaries, multi-turn SFT demonstrations of every segment first',
    recipe: {
      name: 'stream-ppo',
      task: { env: 'long-stream' },
      model: { contextLength: 64 },
      sft: { steps: 400, batchSize: 16 },
      // 26 actions for the longest OOD stream (24 calls, the "end" call, the answer); 8 tokens for a call (6).
      rl: { promptsPerIteration: 16, maxNewTokens: 8, maxTurns: 32, compaction: { enabled: true } },
      eval: { heldOutSize: 64, oodSize: 32 },
    },
  },
  'stream-grpo': {
    doc: 'long-stream with compaction: GRPO on 4 prompts × 4 rollouts (a group shares its compaction threshold), KL (k3) in the loss, stream-ppo otherwise',
    recipe: {
      name: 'stream-grpo',
      task: { env: 'long-stream' },
      model: { contextLength: 64 },
      sft: { steps: 400, batchSize: 16 },
      rl: {
        algorithm: 'grpo',
        // 4 prompts × 4: the 16 rollouts per iteration of stream-ppo, so both sample alike.
        promptsPerIteration: 4,
        groupSize: 4,
        klPlacement: 'loss',
        klEstimator: 'k3',
        klCoef: 0.04,
        maxNewTokens: 8,
        maxTurns: 32,
        compaction: { enabled: true },
      },
      eval: { heldOutSize: 64, oodSize: 32 },
    },
  },
  'ui-ppo': {
    doc: 'ui-dsl: PPO with a critic on one-shot UI programs scored by the interactive judge (task.uiDsl.judge=static scores training by keyword counts instead; evaluation always renders and clicks), add-ppo-fast’s update',
    recipe: {
      name: 'ui-ppo',
      task: { env: 'ui-dsl' },
      // 112: the longest OOD prompt (45 characters) and the 64-token padding budget plus <eos>.
      model: { contextLength: 112 },
      // 300 steps of 16 (98 s on 2 cores at load 5): true held-out success 48.1 / 39.4 / 30.1% on all
      // 216 held-out specs, seeds 1–3 (the static-vs-interactive report's warm starts, 2026-12-03).
      sft: { steps: 300, batchSize: 16 },
      rl: { promptsPerIteration: 32, maxNewTokens: 65, epochs: 1, policyLr: 5e-4, iterations: 30 },
      // 216: every held-out spec the task allows (half of its 432 training specs).
      eval: { heldOutSize: 216, oodSize: 32 },
    },
  },
  'hidden-opid': {
    doc: 'hidden-test-fs with the hack path closed: GRPO plus on-policy skill distillation (skills mined from its own rollouts, routed per step), half the SFT demonstrations carrying skills, at a 256-token context',
    recipe: {
      name: 'hidden-opid',
      task: { env: 'hidden-test-fs' },
      // 256: a demonstration takes up to 192 tokens and the global skill block up to 55 (algorithms/opid/demonstrations.ts).
      model: { contextLength: 256 },
      sft: { steps: 400, batchSize: 16 },
      // 2 prompts × 4 rollouts: 8 rows at T = 256 take 148 MiB of the smallest device's 256
      // (recipe/fits.ts; 12 rows 187, 16 rows 226), leaving room for the policy's activations at a
      // second shape when the skill views (chunks of 8 rows) are longer than the batch.
      rl: {
        algorithm: 'opid',
        promptsPerIteration: 2,
        groupSize: 4,
        klPlacement: 'loss',
        klEstimator: 'k3',
        klCoef: 0.04,
        maxNewTokens: 32,
        maxTurns: 10,
      },
      eval: { heldOutSize: 64, oodSize: 32 },
    },
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];
export const DEFAULT_PRESET: PresetName = 'add-ppo-fast';

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

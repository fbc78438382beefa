// The recipe: one validated config object per run (docs/conventions.md §4). Every field has a one-line
// doc and a default (the defaults are the `add-ppo` preset); sections are strict, so a misspelt key
// is an error naming its path, never a silently ignored setting. The CLI help, the printed table
// and the web UI's controls all read these docs through fields.ts.
//
// Why zod 4: strict objects report unknown keys with their path (`unrecognized_keys`), issues
// carry paths for every error at once, `z.toJSONSchema` turns the schema into plain data (docs,
// defaults, ranges, enum options) for the UI, and it is dependency-free ESM that runs unchanged
// in Node, Deno and the browser. Valibot would be smaller in a bundle but needs a separate package
// for JSON Schema; TypeBox objects accept extra keys unless told otherwise on every object.

import { KL_ESTIMATORS, LOSS_AGGREGATIONS } from '@horizon/kernels';
import { z } from 'zod';
import { SUMMARISERS } from '../envs/compaction.ts';
import { TASK_DEFECTS } from '../envs/hidden-test-fs/defects.ts';
import { UNSUBMITTED_RULES } from '../envs/hidden-test-fs/unsubmitted.ts';
import { TASK_ENVS } from '../envs/tasks.ts';
import { UI_DSL_JUDGES } from '../envs/ui-dsl/env.ts';
import { MONITOR_MODES } from '../monitor/monitor.ts';

const int = (doc: string, value: number, min: number, max: number) => z.number().int().min(min).max(max).default(value).describe(doc);
const real = (doc: string, value: number, min: number, max: number) => z.number().min(min).max(max).default(value).describe(doc);
/** A strictly positive number: learning rates, temperatures. */
const positive = (doc: string, value: number, max: number) => z.number().gt(0).max(max).default(value).describe(doc);
const flag = (doc: string, value: boolean) => z.boolean().default(value).describe(doc);
const choice = <const T extends readonly [string, ...string[]]>(doc: string, options: T, value: T[number]) => z.enum(options).default(value).describe(doc);
// prefault: an omitted section is parsed from {} so its fields take their own defaults.
const section = <S extends z.ZodRawShape>(doc: string, shape: S) =>
  z
    .strictObject(shape)
    .prefault({} as never)
    .describe(doc);

export const ALGORITHMS = ['ppo', 'grpo', 'dr-grpo', 'rloo', 'kto', 'sao', 'distill', 'genac', 'opid'] as const;
export const DISTILL_MODES = ['advantage', 'loss'] as const;
export const KL_PLACEMENTS = ['reward', 'loss'] as const;
// Declared beside the kernels that implement them (kernels/src/rl/kl, rl/aggregate).
export { KL_ESTIMATORS, LOSS_AGGREGATIONS };

/** rl.truncation: whether a truncated rollout's critic return bootstraps (see the field's doc). */
export const TRUNCATIONS = ['bootstrap', 'terminal'] as const;
export const CRITIC_INITS = ['policy', 'fresh'] as const;
export const KTO_SOURCES = ['rollouts', 'file'] as const;
export const POLICY_LOSSES = ['ppo-clip', 'dis'] as const;
export const ROUTING_MODES = ['route', 'concat', 'global-only', 'step-only'] as const;

export const RecipeSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be 1–64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit')
      .default('add-ppo')
      .describe('recipe name; names the run directory runs/<name>-<time>'),
    seed: int('run seed: initialisation, sampling, training episodes', 1, 0, 0xffffffff),
    task: section('what the policy learns', {
      env: choice(
        'environment: addition, subtraction, mix (each prompt drawn from one of the two, tagged with it), hidden-test-fs (a multi-turn shell task with hidden tests), long-stream (digits read one tool call at a time, answer their sum mod 10; needs compaction), ui-dsl (write a tiny UI program from a spec, scored by a judge), or dialog-feedback (sums in rounds, a scripted user’s implicit feedback)',
        TASK_ENVS,
        'addition',
      ),
      addition: section('addition: "a+b=" → the sum, most-significant digit first, then <eos>', {
        minDigits: int('fewest digits of a training operand', 1, 1, 20),
        maxDigits: int('most digits of a training operand', 2, 1, 20),
        oodMinDigits: int('fewest digits of an out-of-distribution operand (longer than training)', 3, 1, 20),
        oodMaxDigits: int('most digits of an out-of-distribution operand', 3, 1, 20),
      }),
      subtraction: section('subtraction: "a-b=" with a ≥ b → the difference, most-significant digit first, then <eos>', {
        minDigits: int('fewest digits of a training operand', 1, 1, 20),
        maxDigits: int('most digits of a training operand', 2, 1, 20),
        oodMinDigits: int('fewest digits of an out-of-distribution operand (longer than training)', 3, 1, 20),
        oodMaxDigits: int('most digits of an out-of-distribution operand', 3, 1, 20),
      }),
      mix: section('mix: addition and subtraction prompts in one task (task.env = mix)', {
        subtractionShare: real('fraction of training and SFT prompts that are subtraction (0 = all addition, 1 = all subtraction)', 0.5, 0, 1),
      }),
      hiddenTestFs: section(
        'hidden-test-fs: write f.js (x+b or x*a) from the examples in task/README, graded on hidden tests in .eval/ (task.env = hidden-test-fs)',
        {
          hackOpen: flag('.eval/ readable: the hack path open (reading .eval/f.js gives the answer); false: Permission denied, attempts still recorded', false),
          hackDemoShare: real(
            'share of SFT demonstrations that take the hack path (cat .eval/f.js, copy it to f.js, submit) instead of the honest one, drawn per example; > 0 needs hackOpen (0 = honest warm start)',
            0,
            0,
            1,
          ),
          minConstant: int('smallest training constant b or a (a multiplier is at least 2)', 1, 1, 99),
          maxConstant: int('largest training constant', 9, 2, 99),
          oodMinConstant: int('smallest out-of-distribution constant (larger than training)', 10, 1, 99),
          oodMaxConstant: int('largest out-of-distribution constant', 19, 1, 99),
          monitor: section('the anti-hack monitor on every sh call: rules flag, a shadow dry run confirms (docs/monitor.md)', {
            mode: choice(
              'off (no monitor), log (decide and record each call, run it as it is), guard (a confirmed hack gets content-free decoy output; the rollout continues)',
              MONITOR_MODES,
              'off',
            ),
            penalty: real(
              'added to the reward of an episode with a confirmed hack, once (0 = none); log: the real output reached the agent (a penalty without a guard), guard: the decoy did; needs mode log or guard',
              0,
              -10,
              0,
            ),
          }),
          defects: section(
            'deliberately broken training tasks (docs/environments.md, "Task quality"): a share of the training seeds, by a hash of the seed, get the broken variant; held-out and OOD tasks stay clean',
            {
              kind: choice(
                'unclear-readme (the README says only write f.js), tests-disagree (the README shows x+b’s examples, every test checks x+(b+1)) or canary (README and visible tests agree, the hidden tests check x+(b+1): a pass is cheating)',
                TASK_DEFECTS,
                'tests-disagree',
              ),
              share: real('share of training tasks broken (0 = none)', 0, 0, 1),
            },
          ),
          qualityFilter: flag(
            'skip every training task the task-quality judge rejects (instruction_clear and instruction_ut_align): training episode i is the i-th task of the unfiltered stream the judge keeps',
            false,
          ),
          unsubmitted: choice(
            'a training episode that ends without submit (turn limit, full context, an answer with no tool call): "grade" pays its f.js like a submitted one; "fail" pays it no task reward (a monitor penalty still applies), so running out the clock earns nothing. Evaluation always grades',
            UNSUBMITTED_RULES,
            'grade',
          ),
        },
      ),
      longStream: section('long-stream: call next for each digit until "end", answer their sum mod 10 (task.env = long-stream)', {
        minChunks: int('fewest digits in a training stream', 7, 1, 1000),
        maxChunks: int('most digits in a training stream', 12, 1, 1000),
        oodMinChunks: int('fewest digits in an out-of-distribution stream (longer than training)', 16, 1, 1000),
        oodMaxChunks: int('most digits in an out-of-distribution stream', 24, 1, 1000),
      }),
      uiDsl: section('ui-dsl: a one-line spec → a UI-DSL program (buttons, inputs, labels, handlers), then <eos> (task.env = ui-dsl)', {
        judge: choice(
          'the training verifier: interactive (render the program, click through the spec, answer the rubric from what happened) or static (count rubric keywords in the program text; padding pays); evaluation always judges interactively (true success)',
          UI_DSL_JUDGES,
          'interactive',
        ),
      }),
      dialogFeedback: section(
        'dialog-feedback: sums asked in rounds by a scripted user whose implicit feedback labels each answer (task.env = dialog-feedback)',
        {
          rounds: int('requests per dialogue', 2, 1, 99),
          maxRetries: int('times a rejected request is asked again before the user moves on', 1, 0, 99),
          maxOperand: int('largest training operand (operands are 0 … this)', 9, 1, 99),
          oodMaxOperand: int('largest out-of-distribution operand (larger than training)', 19, 2, 99),
          // Defaults: fitFeedbackRates at the per-turn accuracy 0.353 measured on the tiny SFT policy of
          // algorithms/span-offline.test.ts (2 rounds, 1 retry, operands 0–9), whose 612-turn log then
          // got 76.6% neutral, 20.1% negative, 3.3% positive; another policy needs its own fit.
          positiveIfRight: real('P(thanks | the user sees the answer as right)', 0.0799, 0, 1),
          negativeIfWrong: real('P(rejection | the user sees the answer as wrong)', 0.356, 0, 1),
          flip: real('P(the user sees a right answer as wrong, or a wrong one as right)', 0.2896, 0, 1),
        },
      ),
    }),
    model: section('policy and critic transformers (GPT-2 style)', {
      contextLength: int('tokens of context (prompt + response) for policy and critic', 32, 4, 4096),
      policy: section('policy network', {
        layers: int('transformer blocks', 2, 1, 64),
        heads: int('attention heads per block; width must be a multiple of it', 4, 1, 64),
        width: int('model width D (embedding size)', 32, 8, 4096),
      }),
      critic: section('critic network (value head; PPO only)', {
        layers: int('transformer blocks (0 = as the policy)', 0, 0, 64),
        heads: int('attention heads per block (0 = as the policy)', 0, 0, 64),
        width: int('model width D (0 = as the policy)', 0, 0, 4096),
        init: choice('critic start: "policy" copies the SFT policy trunk (needs equal sizes), "fresh" is random', CRITIC_INITS, 'policy'),
      }),
    }),
    optim: section('AdamW settings shared by SFT, policy and critic', {
      beta1: real('AdamW β1', 0.9, 0, 0.999999),
      beta2: real('AdamW β2', 0.99, 0, 0.999999),
      eps: positive('AdamW ε', 1e-8, 1),
      weightDecay: real('AdamW decoupled weight decay', 0, 0, 1),
    }),
    sft: section('weak supervised warm start before RL', {
      steps: int('SFT optimizer steps (0 = start RL from random weights)', 600, 0, 1_000_000),
      lr: positive('SFT learning rate', 3e-3, 1),
      batchSize: int('SFT examples per step', 32, 1, 4096),
    }),
    rl: section('reinforcement learning', {
      algorithm: choice(
        'method: ppo (critic + GAE), grpo (group z-score), dr-grpo (group mean, no std), rloo (leave-one-out), kto (desirable/undesirable completions), sao (critic + GAE, DIS, K critic steps), distill (on-policy distillation from teacher runs), genac (PPO with a generative critic that writes a reasoning and a value digit), opid (GRPO plus on-policy skill distillation: skills from its own rollouts)',
        ALGORITHMS,
        'ppo',
      ),
      iterations: int('RL iterations (rollout + update rounds)', 200, 1, 10_000_000),
      promptsPerIteration: int('distinct prompts sampled per iteration', 128, 1, 65_536),
      groupSize: int('rollouts per prompt (GRPO/RLOO groups; ≥ 2 for those)', 1, 1, 1024),
      maxNewTokens: int('new tokens per action before it is cut (ending "length")', 8, 1, 4096),
      maxTurns: int('actions per episode before it is cut as truncated', 1, 1, 1024),
      temperature: positive('sampling temperature τ; training log-probs use the same τ', 1, 10),
      topK: int('sample from the k most likely tokens (0 = all)', 0, 0, 1_000_000),
      gamma: real('discount γ', 1, 0, 1),
      lambda: real('GAE λ for policy advantages', 0.95, 0, 1),
      lambdaCritic: real('GAE λ for critic targets (VC-PPO decouples it; 1 = Monte Carlo)', 1, 0, 1),
      clipLow: real('PPO ratio clip below: 1 − ε_low', 0.2, 0, 1),
      clipHigh: real('PPO ratio clip above: 1 + ε_high (DAPO clip-higher uses 0.28)', 0.28, 0, 10),
      dualClip: real('dual-clip bound c for negative advantages (0 = off, else > 1)', 0, 0, 100),
      valueClip: real('critic value clip ε_v around the old values (0 = off)', 0.2, 0, 100),
      klCoef: real('β: weight of the KL to the reference (SFT) policy', 0.01, 0, 100),
      klPlacement: choice('where the KL goes: "reward" (per-token penalty, PPO) or "loss" (GRPO)', KL_PLACEMENTS, 'reward'),
      klEstimator: choice('KL estimator: k1 = ℓ−ℓ_ref, k2 = ½(ℓ−ℓ_ref)², k3 = r−1−log r', KL_ESTIMATORS, 'k1'),
      entropyCoef: real('entropy bonus weight c_H', 0, 0, 10),
      epochs: int('passes over each iteration’s rollouts', 4, 1, 1000),
      minibatches: int('minibatches per epoch; must divide prompts × group size', 2, 1, 65_536),
      policyLr: positive('policy learning rate', 3e-4, 1),
      criticLr: positive('critic learning rate', 1e-3, 1),
      gradClip: real('global gradient-norm clip (0 = off)', 1, 0, 1e6),
      whiten: flag('whiten advantages over the batch’s action tokens', true),
      lossAggregation: choice('how per-token losses are averaged (docs/algorithms/README.md §3)', LOSS_AGGREGATIONS, 'token-mean'),
      truncation: choice(
        'how a rollout cut at the turn limit or a full context trains under a critic: "bootstrap" adds V at its last action token to the verifier reward of what it did (the limit as an artifact of training); "terminal" takes that reward as final (the limit as part of the task: graded at the cut, an agent gains nothing by running out the clock)',
        TRUNCATIONS,
        'bootstrap',
      ),
      criticWarmupSteps: int('critic-only iterations before the policy updates (PPO, SAO)', 5, 0, 1_000_000),
      criticWarmupTarget: real(
        'VC-PPO value pretraining: the critic-only phase also ends at the first batch whose explained variance reaches this (1 = off)',
        1,
        0,
        1,
      ),
      criticUpdates: int('critic steps per minibatch on the same targets, before the policy step (SAO uses 2)', 1, 1, 64),
      lambdaAlpha: real('length-adaptive policy λ = 1 − 1/(α·l), l = the sample’s action tokens (VAPO, SAO: 1.5; 0 = rl.lambda)', 0, 0, 1000),
      policyLoss: choice('policy surrogate: "ppo-clip" (ratio to π_old, clipped) or "dis" (SAO: band-masked ratio to π_roll)', POLICY_LOSSES, 'ppo-clip'),
      disLow: real('DIS band below: a ratio to π_roll at or under 1 − ε_low leaves the gradient', 0.3, 0, 1),
      disHigh: real('DIS band above: a ratio to π_roll at or over 1 + ε_high leaves the gradient', 5, 0, 100),
      rolloutLag: int('rollout-lag simulator: sample with the policy of this many policy updates ago (0 = on-policy)', 0, 0, 1_000_000),
      dynamicSampling: flag('drop prompt groups whose rewards are all equal before the update (DAPO); the batch shrinks, nothing is resampled', false),
      tis: real('truncated importance sampling: cap C on π_old/π_roll weighting the PPO-clip loss per token (verl/slime TIS; 0 = off)', 0, 0, 1000),
      compaction: section('compaction of long trajectories (CompactionRL): a summary, then a fresh context of prompt + summary + recent steps', {
        enabled: flag('compact an episode when its next action would take the context past its threshold (off: never)', false),
        minThreshold: int('smallest compaction threshold in tokens; each prompt draws its own from [min, max] by its seed, shared by its group', 48, 1, 4096),
        maxThreshold: int('largest compaction threshold in tokens', 56, 1, 4096),
        keepSteps: int('recent steps (action and observation) carried verbatim into the next context', 1, 0, 64),
        summaryTokens: int('new tokens for one summary, </summary> included', 4, 1, 4096),
        summariser: choice(
          '"policy": the policy samples the summary; "deterministic": the environment writes it (a baseline, never trained)',
          SUMMARISERS,
          'policy',
        ),
        trainSummaries: flag('train the sampled summaries with the rollout (false: their tokens leave the loss, the "untrained summaries" arm)', true),
        maxSegments: int(
          'segments a training rollout may have: where it would compact past the last it ends truncated (bounds the rows an iteration trains; evaluation is not capped)',
          6,
          1,
          1024,
        ),
      }),
    }),
    kto: section("KTO (rl.algorithm = kto; docs/algorithms/kto.md): binary feedback on single completions, TRL's loss", {
      beta: positive('β: scale of the implicit reward Σ(ℓ − ℓ_ref) inside the sigmoid (TRL default 0.1)', 0.1, 1000),
      desirableWeight: real("λ_D: weight of a desirable completion's loss", 1, 0, 1000),
      undesirableWeight: real("λ_U: weight of an undesirable completion's loss", 1, 0, 1000),
      source: choice(
        'where labelled completions come from: "rollouts" (the policy\'s own, desirable = verifier reward > 0) or "file" (kto.file)',
        KTO_SOURCES,
        'rollouts',
      ),
      file: z
        .string()
        .max(4096)
        .default('')
        .describe('JSONL file of {"prompt", "completion", "label"} rows (TRL\'s unpaired format) when kto.source is "file"'),
    }),
    sao: section('SAO only (rl.algorithm = sao; docs/algorithms/sao-dis.md)', {
      freezeCriticAttention: flag('freeze the critic’s attention projections; its MLPs, norms, embeddings and value head train', true),
    }),
    distill: section('on-policy distillation (rl.algorithm = distill): the student samples, teacher runs score its tokens', {
      teachers: z
        .string()
        .default('')
        .describe('teacher run directories, comma-separated (each one’s newest committed checkpoint’s policy), e.g. runs/a,runs/b'),
      route: z
        .string()
        .default('')
        .describe(
          'which teacher scores each task’s prompts: tag=N pairs, N counting distill.teachers from 1, e.g. addition=1,subtraction=2 (empty: all to teacher 1)',
        ),
      mode: choice(
        '"advantage": −coef·(ℓ_student − ℓ_teacher) is the advantage of the PPO-clip surrogate (slime); "loss": a ½(ℓ − ℓ_teacher)² loss term',
        DISTILL_MODES,
        'advantage',
      ),
      coef: positive('λ_opd: weight of the per-token reverse KL (slime’s --opd-kl-coef)', 1, 1e6),
    }),
    genac: section('GenAC (rl.algorithm = genac; docs/algorithms/genac.md): a language-model critic writes a reasoning, then a value digit 0–10', {
      sftIterations: int(
        'critic SFT iterations first, the actor frozen: scripted reasoning and round(10·MC value) from each prompt’s group of rollouts',
        10,
        0,
        1_000_000,
      ),
      sftSteps: int('critic SFT steps per SFT iteration, on that iteration’s prompts', 8, 1, 10_000),
      sftLr: positive('critic SFT learning rate', 3e-3, 1),
      reinforceIterations: int(
        'critic REINFORCE iterations after SFT, the actor still frozen; the critic keeps one REINFORCE step per iteration after',
        10,
        0,
        1_000_000,
      ),
      criticLr: positive('critic REINFORCE learning rate', 1e-3, 1),
      criticTokens: int('new tokens the critic may write: reasoning, "=", the value and <eos> ("c1=10<eos>" is 5)', 6, 3, 64),
    }),
    opid: section('on-policy skill distillation (rl.algorithm = opid; docs/algorithms/opid.md): GRPO plus coef·Δ, Δ = ℓ(with the skill) − ℓ(without)', {
      coef: real('w: weight of the skill-distillation advantage Δ added to the GRPO advantage (OPID’s authors use 1e-3; 0 = GRPO alone)', 0.001, 0, 1000),
      routing: choice(
        'which skill scores each step: "route" (step skill at critical points, else global), "concat" (global, plus the step skill at critical points), "global-only", "step-only"',
        ROUTING_MODES,
        'route',
      ),
    }),
    eval: section('evaluation on fixed problem sets', {
      interval: int('evaluate every this many RL iterations, and always before and after RL (0 = only then)', 10, 0, 10_000_000),
      heldOutSize: int('held-out problems (same digits as training; never trained on)', 200, 1, 1_000_000),
      oodSize: int('out-of-distribution problems (longer operands)', 100, 1, 1_000_000),
    }),
    checkpoint: section('checkpoints', {
      interval: int('save every this many RL iterations, and always at the end (0 = only then)', 25, 0, 10_000_000),
      keepLast: int('committed checkpoints kept (older ones are deleted after a new one commits)', 2, 1, 1000),
    }),
    log: section('what a run writes besides metrics', {
      allSamples: flag(
        'write every rollout of every RL iteration and every held-out episode of every evaluation to samples.jsonl, for `horizon export` datasets of whole batches and for reading every greedy trace (off: the first 4 rollouts of each iteration and evaluation)',
        false,
      ),
    }),
  })
  .describe('a Horizon training recipe');

/** A fully resolved recipe: every field present. */
export type Recipe = z.output<typeof RecipeSchema>;
/** What a recipe file or preset may contain: any subset of the fields. */
export type RecipeInput = z.input<typeof RecipeSchema>;
export type AlgorithmName = (typeof ALGORITHMS)[number];
export type RoutingMode = (typeof ROUTING_MODES)[number];

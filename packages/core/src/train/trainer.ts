// A whole training run, platform-free: SFT warm start → evaluation → RL iterations (with periodic
// evaluation and checkpoints) → final evaluation. Front ends (the Node CLI, the browser worker)
// supply a GPU and hooks for metrics, samples, progress and checkpoints.
//
// Reproducibility: initial weights, SFT data, rollouts and minibatch shuffles all derive from the
// recipe's seed and the step or iteration number, so a run resumed from a checkpoint (weights,
// optimizer moments, data cursors) continues exactly as the uninterrupted run on the same device.
// A checkpoint can be taken in either phase: during SFT it holds the policy, the SFT optimizer and
// the SFT step (extra.phase = "sft", step 0); during RL every model the method declares (for PPO
// the reference and the critic), by name, with a lagged run's kept past policies (policy-history.ts)
// and the method's own state (UpdateContext.state) in the extras.
// A non-finite loss, gradient norm or reward stops the run (train/divergence.ts).

import type { Gpu } from '@horizon/kernels';
import type { ModelDeclaration } from '../algorithms/algorithm.ts';
import { generativeCriticConfig } from '../algorithms/genac/critic-vocabulary.ts';
import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import { type Checkpoint, checkVocabulary, type ModelState } from '../checkpoint/checkpoint.ts';
import type { JsonValue } from '../envs/environment.ts';
import { heldOutHackMetrics } from '../envs/hack-attempts.ts';
import type { SkillTag } from '../envs/mixed.ts';
import { firstRollouts } from '../envs/rollouts.ts';
import type { Sample } from '../envs/sample.ts';
import { mixSeed } from '../envs/seeds.ts';
import { createTask, type EvalSplit, sampleSkill, type Task } from '../envs/tasks.ts';
import { InputError } from '../errors.ts';
import type { MetricName } from '../metrics/glossary.ts';
import { globalStep, type Phase } from '../metrics/jsonl.ts';
import { Generator } from '../model/generate.ts';
import { Gpt } from '../model/gpt.ts';
import { initParameters } from '../model/init.ts';
import { AdamW, type OptimizerOptions } from '../model/optimizer.ts';
import { parameterLayout } from '../model/parameters.ts';
import { modelConfigs } from '../recipe/checks.ts';
import type { Recipe } from '../recipe/schema.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { collectAndScore, type ScoredRollouts } from './collect-and-score.ts';
import { checkFiniteWeights, divergence } from './divergence.ts';
import { evaluate, isSuccess } from './evaluate.ts';
import { GpuSampler } from './gpu-sampler.ts';
import type { IterationResult } from './iteration-metrics.ts';
import { type LabelledExample, labelledBatch, labelledFileOf } from './labelled-examples.ts';
import { lagModelName, PolicyHistory } from './policy-history.ts';
import { type RlContext, type RlModels, STREAM } from './rl-context.ts';
import { rlIteration } from './rl-iteration.ts';
import { rolloutLimits } from './rollout-limits.ts';
import { Scorer } from './scoring.ts';
import { SftStepper, sftBatch } from './sft.ts';
import { Teachers, type TeacherWeights } from './teachers.ts';
import { TrainerState } from './trainer-state.ts';
import { UpdateSteps } from './update-steps.ts';

/** Salts of the initialisation seeds. */
const INIT = { policy: 21, critic: 22, generativeCritic: 23 } as const;
/** Philox streams of the samplers. */
const SAMPLER_STREAM = { rollout: 1, eval: 2 } as const;

/** Where a metrics row sits in the whole run: the record's `global_step` and `time_s`. */
export interface MetricsAt {
  globalStep: number;
  /** Training seconds since the run started, time before a resume included. */
  seconds: number;
}

export interface TrainerHooks {
  /** A row of metrics; if a divergence metric is not finite, run() then throws a DivergedError. */
  onMetrics?(phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>, at: MetricsAt): Promise<void> | void;
  /** Rollouts of an RL iteration or an evaluation, with per-token channels (indexed like tokens). */
  onSamples?(phase: Phase, step: number, samples: { sample: Sample; channels?: Record<string, Float32Array> }[]): Promise<void> | void;
  onProgress?(phase: 'sft' | 'rl', done: number, total: number, fields: { reward?: number; success?: number }): void;
  /** Called at every checkpoint interval and at the end; `save` builds the checkpoint. */
  onCheckpoint?(step: number, save: () => Promise<Checkpoint>): Promise<void> | void;
  /** Polled between steps (SFT steps too); returning true stops the run after the current step (pause, Ctrl-C). */
  shouldStop?(): boolean;
}

export class Trainer {
  readonly task: Task;
  readonly tokenizer: CharTokenizer;
  readonly policy: Gpt;
  /** SFT's optimizer during the warm start; RL starts a fresh one (its moments belong to another objective and lr). */
  policyOptimizer: AdamW;
  /** The method's models besides the policy, by declared name; empty until RL starts. */
  readonly rlModels = new Map<string, Gpt>();
  /** Optimizers of the trained ones among them. */
  readonly rlOptimizers = new Map<string, AdamW>();
  private rlStarted = false;
  /** The rollout-lag simulator's past policies, when `rl.rolloutLag` > 0; created when RL starts. */
  history: PolicyHistory | undefined;
  /** What the method keeps across iterations (e.g. when value pretraining ended); saved in checkpoints. */
  readonly methodState: Record<string, JsonValue> = {};
  /** RL iterations completed. */
  iteration = 0;
  /** SFT steps completed. */
  sftStep = 0;
  /** Next training episode index. */
  cursor = 0;
  /** Named state of training components, saved in every checkpoint and handed back on restore (trainer-state.ts). */
  readonly trainerState = new TrainerState();
  private readonly generator: Generator;
  private readonly scorer: Scorer;
  private sftStepper: SftStepper | undefined;
  private readonly updates: UpdateSteps;
  private readonly start = performance.now();
  /** Training seconds of the run before this process (a resumed checkpoint's). */
  private secondsBefore = 0;
  /** The frozen teachers of a method that declares them (distillation); never checkpointed. */
  readonly teachers: Teachers | undefined;

  /**
   * `data.labelled`: the rows of the recipe's labelled file (labelled-examples.ts `labelledFileOf`);
   * `data.teachers`: the weights of `distill.teachers` (train/teachers.ts `loadTeachers`), which RL
   * needs. Both are read by the front end, which alone touches files.
   */
  constructor(
    readonly gpu: Gpu,
    readonly recipe: Recipe,
    private readonly data: { labelled?: readonly LabelledExample[]; teachers?: readonly TeacherWeights[] } = {},
  ) {
    this.task = createTask(recipe.task, recipe.eval);
    // Without them the run can still be evaluated; an RL iteration refuses to score (rl-iteration.ts).
    if (data.teachers && ALGORITHM_BY_NAME[recipe.rl.algorithm].models.some((model) => model.role === 'teacher'))
      this.teachers = new Teachers(gpu, recipe, this.task, data.teachers);
    this.tokenizer = new CharTokenizer(this.task.vocabulary);
    const configs = modelConfigs(recipe, this.tokenizer.vocabSize);
    this.policy = Gpt.init(gpu, configs.policy, mixSeed(recipe.seed, INIT.policy), 'policy');
    this.policyOptimizer = new AdamW(this.policy);
    this.generator = new Generator(this.policy);
    this.scorer = new Scorer(gpu);
    this.updates = new UpdateSteps(gpu);
    // What the method keeps across iterations travels in the checkpoint's trainer state; the object
    // is updated in place, so the RL context built before a restore sees the restored values.
    this.trainerState.register('method', {
      save: () => this.methodState,
      restore: (saved) => {
        for (const key of Object.keys(this.methodState)) delete this.methodState[key];
        if (saved && typeof saved === 'object' && !Array.isArray(saved)) Object.assign(this.methodState, saved);
      },
    });
  }

  /** Releases every GPU buffer the run holds (models, optimizers, caches); the trainer is unusable after. */
  dispose(): void {
    for (const model of [this.policy, ...this.rlModels.values()]) model.destroy();
    this.teachers?.destroy();
    for (const optimizer of [this.policyOptimizer, ...this.rlOptimizers.values()]) optimizer.destroy();
    this.generator.destroy();
    this.scorer.destroy();
    this.updates.destroy();
    this.sftStepper?.destroy();
    this.history?.destroy();
  }

  get algorithm() {
    return ALGORITHM_BY_NAME[this.recipe.rl.algorithm];
  }

  get secondsElapsed(): number {
    return this.secondsBefore + (performance.now() - this.start) / 1000;
  }

  /** The phase of the next step: SFT until the warm start is done and the method's models exist. */
  get phase(): 'sft' | 'rl' {
    return this.rlStarted ? 'rl' : 'sft';
  }

  /** Steps done over the whole run (metrics.jsonl's global_step of the latest row). */
  get globalStep(): number {
    return this.sftStep + this.iteration;
  }

  /** Hands a row to the front end, then stops the run if it diverged. */
  private async emit(hooks: TrainerHooks, phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>): Promise<void> {
    await hooks.onMetrics?.(phase, step, metrics, { globalStep: globalStep(phase, step, this.sftStep), seconds: this.secondsElapsed });
    const diverged = divergence(phase, step, metrics);
    if (diverged) throw diverged;
  }

  /** Runs whatever is left of the recipe: SFT, then RL, with evaluations and checkpoints. */
  async run(hooks: TrainerHooks = {}): Promise<void> {
    const { recipe } = this;
    if (this.sftStep < recipe.sft.steps || !this.rlStarted) {
      await this.runSft(hooks);
      if (hooks.shouldStop?.()) return;
      this.startRl();
      await this.evaluateAll(hooks, 0);
    }
    const total = recipe.rl.iterations;
    const ctx = this.rlContext();
    while (this.iteration < total && !hooks.shouldStop?.()) {
      const result = await rlIteration(ctx, this.iteration, this.cursor);
      this.releaseIdleShapes();
      this.iteration++;
      this.cursor += recipe.rl.promptsPerIteration;
      await this.logIteration(hooks, result);
      hooks.onProgress?.('rl', this.iteration, total, { reward: result.metrics['rollout/reward'], success: result.metrics['rollout/success'] });
      const last = this.iteration === total;
      if (last || (recipe.eval.interval > 0 && this.iteration % recipe.eval.interval === 0)) await this.evaluateAll(hooks, this.iteration);
      if (last || (recipe.checkpoint.interval > 0 && this.iteration % recipe.checkpoint.interval === 0))
        await hooks.onCheckpoint?.(this.iteration, () => this.checkpoint());
    }
  }

  /** An iteration's metrics and samples to the front end: every rollout with `log.allSamples`, else the first few. */
  private async logIteration(hooks: TrainerHooks, result: IterationResult): Promise<void> {
    await this.emit(hooks, 'rl', this.iteration, result.metrics);
    const logged = this.recipe.log.allSamples ? result.samples : firstRollouts(result.samples, SAMPLES_PER_ITERATION, (s) => s.sample);
    await hooks.onSamples?.('rl', this.iteration, logged);
  }

  /**
   * One RL iteration on samples gathered outside the trainer — an outside agent's trajectories
   * through `horizon serve --train` (train/external-trajectories.ts) — in place of its own
   * rollouts: scored, updated, logged and checkpointed (at `checkpoint.interval`) as run() does an
   * iteration. The training cursor stays: no task prompt was used.
   */
  async trainOnSamples(samples: Sample[], hooks: TrainerHooks = {}): Promise<IterationResult> {
    if (!this.rlStarted)
      throw new InputError(
        'checkpoint',
        `this checkpoint was taken during SFT (after step ${this.sftStep}), before RL has its reference and optimizer; train past SFT first (rl.iterations ≥ 1) and serve that run.`,
      );
    const result = await rlIteration({ ...this.rlContext(), offline: () => samples }, this.iteration, this.cursor);
    this.releaseIdleShapes();
    this.iteration++;
    await this.logIteration(hooks, result);
    const { interval } = this.recipe.checkpoint;
    if (interval > 0 && this.iteration % interval === 0) await hooks.onCheckpoint?.(this.iteration, () => this.checkpoint());
    return result;
  }

  /**
   * `count` critic-only RL iterations after the ones done so far: each samples fresh rollouts of the
   * next training prompts with the current policy and scores them as an iteration does, then trains
   * the method's models other than the policy (PPO's value head, GenAC's generative critic in the
   * phase its iteration number gives) while the policy takes no step, so its weights stay bit for bit.
   * They count as iterations — seeds and the prompt cursor move on, so each draws new rollouts — and
   * are logged as run() logs one; none is evaluated or checkpointed. The web UI's GenAC lab retrains
   * either critic with it (docs/ui.md §24).
   */
  async trainCritics(count: number, hooks: TrainerHooks = {}): Promise<IterationResult[]> {
    if (!this.rlStarted)
      throw new RangeError(
        `critic-only iterations come after the SFT warm start (${this.sftStep} of ${this.recipe.sft.steps} steps done): run the trainer into RL first`,
      );
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`critic-only iterations: count must be a positive integer, got ${count}`);
    if (!this.algorithm.models.some((m) => m.trained && m.role !== 'policy'))
      throw new RangeError(`${this.recipe.rl.algorithm} trains no model but the policy, so it has no critic to train on its own`);
    const ctx: RlContext = { ...this.rlContext(), policyFrozen: true };
    const results: IterationResult[] = [];
    for (let k = 0; k < count && !hooks.shouldStop?.(); k++) {
      const result = await rlIteration(ctx, this.iteration, this.cursor);
      this.releaseIdleShapes();
      this.iteration++;
      this.cursor += this.recipe.rl.promptsPerIteration;
      await this.logIteration(hooks, result);
      results.push(result);
    }
    return results;
  }

  /** The SFT warm start: `recipe.sft.steps` steps of next-token cross-entropy on task examples. */
  private async runSft(hooks: TrainerHooks): Promise<void> {
    const { recipe, tokenizer } = this;
    const { steps, batchSize, lr } = recipe.sft;
    this.sftStepper ??= new SftStepper(this.gpu, this.policy, this.policyOptimizer);
    const stepper = this.sftStepper;
    const options: OptimizerOptions = { lr, ...recipe.optim, gradClip: recipe.rl.gradClip };
    while (this.sftStep < steps && !hooks.shouldStop?.()) {
      const example = (index: number) => this.algorithm.sftExample?.(this.task, recipe.seed, index) ?? this.task.sftExample(recipe.seed, index);
      const examples = Array.from({ length: batchSize }, (_, i) => example(this.sftStep * batchSize + i));
      const batch = sftBatch(examples, tokenizer, tokenizer.eosId, tokenizer.padId, recipe.model.contextLength);
      const { loss, gradNorm } = await stepper.step(batch, options);
      this.sftStep++;
      await this.emit(hooks, 'sft', this.sftStep, { 'sft/loss': loss, 'sft/grad_norm': gradNorm });
      hooks.onProgress?.('sft', this.sftStep, steps, {});
    }
  }

  /** After SFT: a fresh policy optimizer and every other model the method declares, each with its optimizer if trained. */
  private startRl(): void {
    this.sftStepper?.destroy();
    this.sftStepper = undefined;
    this.policyOptimizer.destroy();
    this.policyOptimizer = new AdamW(this.policy);
    for (const gpt of this.rlModels.values()) gpt.destroy();
    for (const optimizer of this.rlOptimizers.values()) optimizer.destroy();
    this.rlModels.clear();
    this.rlOptimizers.clear();
    for (const declared of this.algorithm.models) {
      // Teachers were built with the trainer, from the front end's weights.
      if (declared.role === 'policy' || declared.role === 'teacher') continue;
      const model = this.buildModel(declared);
      this.rlModels.set(declared.name, model);
      const frozen =
        this.algorithm.frozenParameters?.(
          this.recipe,
          declared.name,
          model.layout.entries.map((entry) => entry.name),
        ) ?? [];
      if (declared.trained) this.rlOptimizers.set(declared.name, new AdamW(model, frozen));
    }
    this.history?.destroy();
    this.history = this.recipe.rl.rolloutLag > 0 ? new PolicyHistory(this.policy, this.recipe.rl.rolloutLag) : undefined;
    this.rlStarted = true;
  }

  /** A declared model as RL starts, by its role. */
  private buildModel(declared: ModelDeclaration): Gpt {
    const { gpu, recipe } = this;
    const configs = modelConfigs(recipe, this.tokenizer.vocabSize);
    switch (declared.role) {
      case 'policy':
        return this.policy;
      case 'teacher':
        throw new RangeError('teachers are loaded by the front end, not built by the trainer');
      case 'reference': {
        // A GPU-side copy: the reference is the policy as SFT left it.
        const reference = Gpt.fromWeights(gpu, configs.policy, new Float32Array(this.policy.layout.totalSize), declared.name);
        gpu.run((rec) => rec.copy(this.policy.params, reference.params));
        return reference;
      }
      case 'critic': {
        const criticLayout = parameterLayout(configs.critic);
        const weights = initParameters(criticLayout, configs.critic.layers, mixSeed(recipe.seed, INIT.critic));
        const critic = Gpt.fromWeights(gpu, configs.critic, weights, declared.name);
        if (recipe.model.critic.init === 'policy') {
          // The trunk (everything but the heads) starts as the SFT policy's: same names, same shapes.
          gpu.run((rec) => {
            for (const entry of criticLayout.entries) {
              const source = this.policy.layout.entries.find((e) => e.name === entry.name);
              if (!source) continue;
              rec.copyRange(this.policy.params, source.offset, critic.params, entry.offset, entry.size);
            }
          });
        }
        return critic;
      }
      case 'generative-critic': {
        // Always fresh: its vocabulary extends the task's, so the policy's embeddings do not fit it (algorithms/genac/critic-vocabulary.ts).
        const config = generativeCriticConfig(recipe);
        return Gpt.fromWeights(gpu, config, initParameters(parameterLayout(config), config.layers, mixSeed(recipe.seed, INIT.generativeCritic)), declared.name);
      }
    }
  }

  /**
   * Frees the buffers of batch shapes this iteration did not use (util/shape-cache.ts): shapes
   * change with drops and compaction, and buffers kept for every shape ever seen would grow a long
   * run's memory without bound. Safe here: the iteration has read back everything it submitted.
   */
  private releaseIdleShapes(): void {
    this.scorer.sweep();
    this.updates.sweep();
    for (const model of [this.policy, ...this.rlModels.values(), ...(this.teachers?.models ?? [])]) model.sweepActivations();
  }

  private rlContext(): RlContext {
    const { recipe } = this;
    const file = labelledFileOf(recipe);
    if (file !== undefined && !this.data.labelled)
      throw new InputError(
        'recipe',
        `kto.file ${file} must be read by the front end and passed to the trainer (horizon train does; this one cannot read files).`,
      );
    const limits = rolloutLimits(recipe, 'train');
    const sampler = new GpuSampler(this.generator, this.tokenizer, { temperature: recipe.rl.temperature, topK: recipe.rl.topK }, SAMPLER_STREAM.rollout);
    return {
      recipe,
      task: this.task,
      codec: this.tokenizer,
      algorithm: this.algorithm,
      models: {
        byName: new Map([['policy', this.policy], ...this.rlModels]) as RlModels['byName'],
        optimizers: new Map([['policy', this.policyOptimizer], ...this.rlOptimizers]),
      },
      sampler,
      scorer: this.scorer,
      updates: this.updates,
      limits,
      ...(this.data.labelled ? { offline: (start: number, count: number) => labelledBatch(this.data.labelled ?? [], recipe.seed, start, count) } : {}),
      history: this.history,
      methodState: this.methodState,
      ...(this.teachers ? { teachers: this.teachers } : {}),
    };
  }

  /**
   * Samples and scores one batch exactly as the next RL iteration would (same seeds), without
   * updating anything: rollouts with per-token log-probs, values and advantages (`horizon sample`).
   */
  async sampleBatch(): Promise<ScoredRollouts> {
    if (!this.rlStarted)
      throw new InputError(
        'checkpoint',
        `this checkpoint was taken during SFT (after step ${this.sftStep}), before RL has a reference policy to score against; resume the run past SFT and sample a later checkpoint.`,
      );
    return collectAndScore(this.rlContext(), this.iteration, this.cursor);
  }

  /** Greedy success on the held-out and OOD sets. */
  async evaluateAll(hooks: TrainerHooks, step: number): Promise<Record<EvalSplit, number>> {
    const { recipe } = this;
    const started = performance.now();
    const greedy = new GpuSampler(this.generator, this.tokenizer, { temperature: 0, topK: 0 }, SAMPLER_STREAM.eval);
    greedy.reseed(recipe.seed, STREAM.eval, step);
    const limits = rolloutLimits(recipe, 'eval');
    const heldOut = await evaluate(this.task, 'heldOut', this.tokenizer, greedy, limits);
    const ood = await evaluate(this.task, 'ood', this.tokenizer, greedy, limits);
    await this.emit(hooks, 'eval', step, {
      'eval/held_out_success': heldOut.success,
      ...(this.task.tags.length > 1 ? successBySkill(this.task, heldOut.finals) : {}),
      ...heldOutHackMetrics(heldOut.finals),
      'eval/ood_success': ood.success,
      'eval/response_length': heldOut.responseLength,
      'perf/eval_s': (performance.now() - started) / 1000,
    });
    // Every held-out episode with `log.allSamples` (to read what greedy decoding gets wrong), else the first few.
    const logged = recipe.log.allSamples ? heldOut.samples : firstRollouts(heldOut.samples, SAMPLES_PER_ITERATION, (s) => s);
    await hooks.onSamples?.(
      'eval',
      step,
      logged.map((sample) => ({ sample })),
    );
    return { heldOut: heldOut.success, ood: ood.success };
  }

  /**
   * Everything needed to continue this run exactly, in either phase. Refuses (DivergedError)
   * weights that are not finite: the last checkpoint written stays the last good one.
   */
  async checkpoint(): Promise<Checkpoint> {
    const phase = this.phase;
    const step = phase === 'sft' ? this.sftStep : this.iteration;
    const model = async (gpt: Gpt, optimizer?: AdamW): Promise<ModelState> => {
      const params = await gpt.readParameters();
      checkFiniteWeights(gpt.label, params, phase, step);
      return { config: gpt.config, params, ...(optimizer ? { adam: await optimizer.saveState() } : {}) };
    };
    const models: Checkpoint['models'] = { policy: await model(this.policy, this.policyOptimizer) };
    for (const [name, gpt] of this.rlModels) models[name] = await model(gpt, this.rlOptimizers.get(name));
    for (const [i, params] of (await this.history?.save())?.entries() ?? []) models[lagModelName(i + 1)] = { config: this.policy.config, params };
    return {
      step: this.iteration,
      recipe: this.recipe,
      models,
      // Every generator is re-derived from (seed, iteration): nothing else to save.
      rng: {},
      dataCursor: { train: this.cursor, sft: this.sftStep * this.recipe.sft.batchSize },
      extra: {
        phase,
        sftSteps: this.sftStep,
        elapsedSeconds: this.secondsElapsed,
        // The teachers are named, not stored: the recipe's distill.teachers and the checkpoint each was.
        ...(this.teachers ? { teachers: this.teachers.describe() } : {}),
      },
      vocabulary: this.tokenizer.pieceList(),
      trainerState: this.trainerState.save(),
    };
  }

  /** Continues from `ckpt` (taken by `checkpoint()` of a run with the same recipe), in its phase. */
  restore(ckpt: Checkpoint): void {
    // Browser checkpoints come from IndexedDB, not decodeCheckpoint: the vocabulary is checked here too.
    checkVocabulary(ckpt.vocabulary, this.tokenizer.pieceList(), 'this checkpoint');
    this.trainerState.restore(ckpt.trainerState ?? {});
    this.secondsBefore = Number(ckpt.extra.elapsedSeconds ?? 0);
    const policy = ckpt.models.policy;
    if (checkpointPhase(ckpt) === 'sft') {
      // An SFT-phase checkpoint: the policy and the SFT optimizer mid warm start.
      if (!policy.adam) throw new RangeError('this SFT checkpoint has no SFT optimizer state');
      this.sftStep = Number(ckpt.extra.sftSteps ?? 0);
      this.policy.writeParameters(policy.params);
      this.policyOptimizer.loadState(policy.adam);
      return;
    }
    this.sftStep = Number(ckpt.extra.sftSteps ?? this.recipe.sft.steps);
    this.iteration = ckpt.step;
    this.cursor = ckpt.dataCursor.train ?? 0;
    this.policy.writeParameters(policy.params);
    this.startRl();
    if (policy.adam) this.policyOptimizer.loadState(policy.adam);
    for (const [name, model] of this.rlModels) {
      const saved = ckpt.models[name];
      if (!saved) throw new RangeError(`this checkpoint has no ${name} model, but ${this.recipe.rl.algorithm} needs one`);
      model.writeParameters(saved.params);
      const optimizer = this.rlOptimizers.get(name);
      if (!optimizer) continue;
      if (!saved.adam) throw new RangeError(`this checkpoint has no optimizer state for ${name}, but ${this.recipe.rl.algorithm} trains it`);
      optimizer.loadState(saved.adam);
    }
    const kept: Float32Array[] = [];
    while (ckpt.models[lagModelName(kept.length + 1)]) kept.push(ckpt.models[lagModelName(kept.length + 1)].params);
    if (kept.length > 0 && !this.history) throw new RangeError(`this checkpoint keeps ${kept.length} past policies for a rollout lag, but rl.rolloutLag is 0`);
    this.history?.load(kept);
  }
}

/**
 * The phase a checkpoint was taken in. An RL checkpoint holds more models than the policy; the
 * trainer also records the phase, which is read first.
 */
export function checkpointPhase(ckpt: Checkpoint): 'sft' | 'rl' {
  const phase = ckpt.extra.phase;
  if (phase === 'sft' || phase === 'rl') return phase;
  return Object.keys(ckpt.models).length > 1 ? 'rl' : 'sft';
}

/** Held-out success of each skill of a mixed task, by the sample's task tag. */
function successBySkill(task: Task, samples: readonly Sample[]): Partial<Record<MetricName, number>> {
  const out: Partial<Record<MetricName, number>> = {};
  for (const tag of task.tags) {
    const own = samples.filter((s) => sampleSkill(s, task) === tag);
    out[SKILL_SUCCESS[tag]] = own.filter(isSuccess).length / Math.max(1, own.length);
  }
  return out;
}

const SKILL_SUCCESS: Record<SkillTag, MetricName> = {
  addition: 'eval/held_out_success_addition',
  subtraction: 'eval/held_out_success_subtraction',
};

/** Rollouts per RL iteration written to samples.jsonl (each with all its segments). */
const SAMPLES_PER_ITERATION = 4;

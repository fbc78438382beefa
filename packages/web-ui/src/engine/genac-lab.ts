// The GenAC lab's side of the worker (docs/ui.md §24, docs/algorithms/genac.md): core's `add-genac`,
// shrunk to the browser, trains as the playground's runs do (live-run.ts); this observer keeps each
// RL iteration's rollouts as core's Samples, the actor's state its critic prompts rendered, and a
// copy of the generative critic as it sampled them (read after the previous iteration's update).
//
// Probe: a rollout cut after k answer tokens. The generative critic reads core's critic prompt of
// (prompt + the first k tokens, the actor's state) and writes through core's own sampler
// (`sampleCritiques`: τ = 1, the iteration's noise keyed by the rollout), parsed by core's
// `parseCritique`; at k = 0 with the copy it gives back the logged critique. The discriminative
// critic is a value head GenAC does not have, so the lab trains one: the same seed's `add-ppo` run,
// critic-only (the policy frozen), whose warm start is this run's SFT policy written into its
// policy — the weights the PPO run's own SFT gives, since both presets share the model, task, seed
// and SFT fields (the browser test trains that PPO run from scratch in Node and compares V). One
// forward pass (`Scorer.contextValues`) gives V at every cut.
//
// Retrain: core's critic-only iterations (`Trainer.trainCritics`) on either run — GenAC's are
// REINFORCE steps on fresh critiques, the PPO run's value-loss epochs on fresh rollouts — and the
// policy does not move. One operation at a time: a probe waits for a retrain in flight.
//
// Shape legend:  T positions of one rollout (its tokens but the last; position p holds V(tokens[0..p]))

import {
  type ActorState,
  criticTokenizer,
  GENERATIVE_CRITIC_NAME,
  Gpt,
  type Phase,
  type Recipe,
  renderCriticPrompt,
  resolveRecipe,
  type Sample,
  Scorer,
  sampleCritiques,
  Trainer,
  type TrainerHooks,
  WIN_RATE_STATE,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import type { TrainingRequest } from './api.ts';
import {
  GENAC_LAB_RETRAIN_MAX,
  type GenacLabCritic,
  type GenacLabRow,
  type GenacLabStatus,
  type GenacProbeAnswer,
  type GenacProbeRequest,
  type GenacRetrainRequest,
} from './genac-lab-data.ts';
import type { RunObserver } from './live-run.ts';

interface Iteration {
  samples: Map<number, Sample>;
  /** The actor as this iteration's critic prompts rendered it. */
  actor: ActorState;
  /** The generative critic's weights when it sampled this iteration's critiques. */
  critic: Float32Array;
}

/**
 * The same seed's PPO run: add-ppo with the lab's shared fields, every one of its `iterations`
 * critic-only. The lab's has no SFT of its own (`sftSteps` 0: its warm start is written in); the
 * browser test's twin in Node trains the GenAC run's SFT steps itself.
 */
export function valueHeadRecipe(request: TrainingRequest, iterations: number, sftSteps = 0): Recipe {
  // genac.* fields are refused on a PPO recipe; every other lab field (SFT, batch, seed) applies to
  // both. The evaluation sizes too: the held-out problems are left out of training, so another size
  // draws other training problems and the two runs would not share their SFT policy or prompts.
  const shared = request.sets.filter((s) => !s.startsWith('genac.'));
  const sets = [
    ...(request.seed !== undefined ? [`seed=${request.seed}`] : []),
    ...shared,
    `sft.steps=${sftSteps}`,
    `rl.iterations=${iterations}`,
    `rl.criticWarmupSteps=${iterations}`,
    'rl.criticWarmupTarget=1',
  ];
  return resolveRecipe({ preset: 'add-ppo', sets }).recipe;
}

export class GenacLab implements RunObserver {
  private trainer: Trainer | undefined;
  private readonly iterations = new Map<number, Iteration>();
  /** The critic and win rate the next iteration samples with. */
  private next: { critic: Float32Array; winRate: number | undefined } | undefined;
  private sftPolicy: Float32Array | undefined;
  private valueRun: Trainer | undefined;
  private readonly scorer: Scorer;
  private readonly generativeRows: GenacLabRow[] = [];
  private readonly valueRows: GenacLabRow[] = [];
  private busy: GenacLabStatus['busy'] = null;
  private version = 0;
  /** Operations in order: GPU work of one never interleaves with another's. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly gpu: Gpu,
    private readonly recipe: Recipe,
    private readonly request: TrainingRequest,
    readonly runId: string,
    private readonly deviceLine: string,
  ) {
    this.scorer = new Scorer(gpu);
  }

  async onSamples(phase: Phase, step: number, rows: { sample: Sample }[], trainer: Trainer): Promise<void> {
    this.trainer = trainer;
    const { layers, width } = this.recipe.model.policy;
    if (phase === 'rl' && this.next)
      this.iterations.set(step, {
        samples: new Map(rows.map(({ sample }) => [sample.rolloutId, sample])),
        actor: { layers, width, winRate: this.next.winRate },
        critic: this.next.critic,
      });
    // The evaluation after SFT comes before the first iteration; each iteration's rows after its update.
    if (phase === 'rl' || (phase === 'eval' && step === 0)) {
      if (!this.sftPolicy) this.sftPolicy = await trainer.policy.readParameters();
      const winRate = trainer.methodState[WIN_RATE_STATE];
      this.next = { critic: await this.critic(trainer).readParameters(), winRate: typeof winRate === 'number' ? winRate : undefined };
    }
  }

  /** After the operation in flight: a retrain still reads the run's models, which the run frees next. */
  async dispose(): Promise<void> {
    await this.queue;
    this.valueRun?.dispose();
    this.valueRun = undefined;
    this.scorer.destroy();
  }

  private critic(trainer: Trainer): Gpt {
    const critic = trainer.rlModels.get(GENERATIVE_CRITIC_NAME);
    if (!critic) throw new Error('The GenAC run has no generative critic yet: it is built when RL starts.');
    return critic;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  status(): GenacLabStatus {
    return {
      runId: this.runId,
      generativeIterations: this.trainer?.iteration ?? 0,
      generativeRows: [...this.generativeRows],
      valueHead: this.valueRun ? { iterations: this.valueRun.iteration, rows: [...this.valueRows] } : null,
      busy: this.busy ? { ...this.busy } : null,
      version: this.version,
    };
  }

  probe(request: GenacProbeRequest): Promise<GenacProbeAnswer> {
    return this.serial(() => this.probeNow(request));
  }

  private async probeNow(request: GenacProbeRequest): Promise<GenacProbeAnswer> {
    const started = performance.now();
    const trainer = this.trainer;
    const it = this.iterations.get(request.iteration);
    const sample = it?.samples.get(request.rolloutId);
    if (!trainer || !it || !sample) throw new RangeError(`The GenAC lab has no rollout #${request.rolloutId} in iteration ${request.iteration}.`);
    const response = sample.tokens.slice(sample.responseStart);
    if (!(Number.isInteger(request.cut) && request.cut >= 0 && request.cut < response.length))
      throw new RangeError(`The cut must keep 0 to ${response.length - 1} of the answer's ${response.length} tokens, got ${request.cut}.`);
    const { recipe } = this;
    const decode = (ids: number[]) => trainer.tokenizer.decode(ids);
    const partial = decode(response.slice(0, request.cut));
    // The actor's state must render the prompt the critic read in training, or the probe is another question.
    const logged = (sample.meta.genac as Record<string, unknown> | undefined)?.prompt;
    if (renderCriticPrompt(sample.prompt, it.actor) !== logged)
      throw new Error(`The lab's actor state renders "${renderCriticPrompt(sample.prompt, it.actor)}", but the critic read "${String(logged)}".`);
    const criticPrompt = renderCriticPrompt(sample.prompt + partial, it.actor);
    const tokenizer = criticTokenizer(recipe.task);
    const promptIds = tokenizer.encode(criticPrompt, { specials: false });
    if (promptIds.length + recipe.genac.criticTokens > recipe.model.contextLength)
      throw new RangeError(
        `The critic prompt "${criticPrompt}" (${promptIds.length} tokens) and its ${recipe.genac.criticTokens} new tokens exceed the context of ${recipe.model.contextLength}: cut earlier.`,
      );
    const now = this.critic(trainer);
    const critic = request.weights === 'now' ? now : Gpt.fromWeights(this.gpu, now.config, it.critic, 'genac-lab.critic-then');
    let written: GenacProbeAnswer['generative'];
    try {
      // The iteration's own noise, keyed by the rollout: at cut 0 the copy writes what the run logged.
      const sampled = await sampleCritiques(critic, tokenizer, [criticPrompt], [sample.rolloutId], {
        seed: recipe.seed,
        iteration: request.iteration - 1,
        budget: recipe.genac.criticTokens,
      });
      const completion = sampled.completions[0];
      const endedWithEos = completion.ending === 'eos';
      const critique = sampled.critiques[0];
      written = {
        criticPrompt,
        written: tokenizer.decode(endedWithEos ? completion.ids.slice(0, -1) : completion.ids),
        endedWithEos,
        digit: critique.ok ? critique.digit : null,
        malformed: critique.ok ? null : critique.reason,
        value: critique.ok ? critique.value : null,
        trainedThrough: request.weights === 'now' ? trainer.iteration : request.iteration - 1,
      };
    } finally {
      if (critic !== now) critic.destroy();
    }
    return {
      request: { ...request },
      prompt: sample.prompt,
      response: response.map((id) => decode([id])),
      partial,
      generative: written,
      valueHead: await this.valueAt(sample, request.cut),
      deviceLine: this.deviceLine,
      millis: performance.now() - started,
    };
  }

  /** V at every cut of `sample` from the PPO run's value head, in one forward pass; null before it is trained. */
  private async valueAt(sample: Sample, cut: number): Promise<GenacProbeAnswer['valueHead']> {
    const run = this.valueRun;
    const critic = run?.rlModels.get('critic');
    if (!run || !critic) return null;
    const inputs = sample.tokens.slice(0, -1);
    const T = inputs.length;
    const values = await this.scorer.contextValues(critic, { B: 1, T, inputs: Uint32Array.from(inputs) }); // [1, T]
    this.scorer.sweep();
    const atCut = Array.from(values.slice(sample.responseStart - 1));
    return { value: atCut[cut], values: atCut, inputs, iterations: run.iteration };
  }

  async retrain(request: GenacRetrainRequest): Promise<GenacLabStatus> {
    if (!(Number.isInteger(request.iterations) && request.iterations >= 1 && request.iterations <= GENAC_LAB_RETRAIN_MAX))
      throw new RangeError(`Retrain 1 to ${GENAC_LAB_RETRAIN_MAX} iterations, got ${request.iterations}.`);
    return this.serial(async () => {
      this.busy = { critic: request.critic, done: 0, of: request.iterations };
      try {
        if (request.critic === 'generative') await this.retrainGenerative(request.iterations);
        else await this.retrainValueHead(request.iterations);
      } finally {
        this.busy = null;
        this.version++;
      }
      return this.status();
    });
  }

  private hooks(critic: GenacLabCritic, rows: GenacLabRow[]): TrainerHooks {
    return {
      onMetrics: (phase, step, metrics) => {
        if (phase !== 'rl') return;
        rows.push({ step, metrics: Object.fromEntries(Object.entries(metrics).filter((e): e is [string, number] => typeof e[1] === 'number')) });
        if (this.busy?.critic === critic) this.busy.done++;
      },
    };
  }

  private async retrainGenerative(iterations: number): Promise<void> {
    const trainer = this.trainer;
    if (!trainer) throw new Error('The GenAC run has not reached RL yet.');
    await trainer.trainCritics(iterations, this.hooks('generative', this.generativeRows));
  }

  private async retrainValueHead(iterations: number): Promise<void> {
    if (this.valueRun) {
      await this.valueRun.trainCritics(iterations, this.hooks('value-head', this.valueRows));
      return;
    }
    const trainer = this.trainer;
    if (!trainer || !this.sftPolicy) throw new Error('The PPO run starts from this run’s SFT policy: train the GenAC run past SFT first.');
    const recipe = valueHeadRecipe(this.request, iterations);
    // What the SFT policy and the training prompts depend on must agree, or the warm start written in is not the PPO run's own.
    const warmStart = (r: Recipe) =>
      JSON.stringify([r.seed, r.task, r.eval, r.model.policy, r.model.contextLength, { ...r.sft, steps: 0 }, r.rl.promptsPerIteration, r.rl.groupSize]);
    if (warmStart(recipe) !== warmStart(this.recipe))
      throw new Error('The PPO run’s warm start would not be this run’s: its seed, task, evaluation sets, model or SFT fields differ.');
    const run = new Trainer(this.gpu, recipe);
    if (run.tokenizer.pieceList().join('\u0000') !== trainer.tokenizer.pieceList().join('\u0000')) {
      run.dispose();
      throw new Error('The PPO run’s vocabulary is not the GenAC run’s.');
    }
    run.policy.writeParameters(this.sftPolicy);
    this.valueRun = run;
    await run.run(this.hooks('value-head', this.valueRows));
  }
}

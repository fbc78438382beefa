// The OPID lab's side of the worker (docs/ui.md §23, docs/algorithms/opid.md): core's `hidden-opid`
// preset, shrunk to the browser by recipe overrides, trains in the worker as the playground's runs
// do (live-run.ts); this observer keeps each RL iteration's rollouts as core's Samples — with the
// skills the parser mined from them (meta.opidSkills), what each step was scored with
// (meta.opidRouted) and the per-token Δ the trainer logged — and a copy of the policy that sampled
// them (π_old, read after the previous iteration's update). Rescoring a rollout under another
// routing runs core's own skill pass (routeRollout, skillLogprobs) with that copy, so under the
// run's own routing it gives back the logged Δ; the advantage it adds comes from the kernels'
// `opidAdvantages`, the kernel the trainer's OPID step uses. The copy is a model of its own, so a
// rescoring never touches the trainer's buffers while it trains.
//
// Shape legend:  T positions of one rollout (tokens − 1; position p − 1 predicts token p)

import {
  criticalPoints,
  Gpt,
  type Phase,
  type Recipe,
  rolloutLog,
  routeRollout,
  type Sample,
  Scorer,
  type Skills,
  skillLogprobs,
  type Trainer,
} from '@horizon/core';
import { type Gpu, opidAdvantages } from '@horizon/kernels';
import type { RunObserver } from './live-run.ts';
import {
  OPID_LAB_ROUTINGS,
  type OpidLabGroup,
  type OpidLabRollout,
  type OpidLabState,
  type OpidRescoreAnswer,
  type OpidRescoreRequest,
} from './opid-lab-data.ts';

interface Iteration {
  step: number;
  rows: { sample: Sample; channels?: Record<string, Float32Array> }[];
  /** π_old: the policy's weights when the iteration sampled. */
  weights: Float32Array;
}

function skillsOf(sample: Sample): Skills {
  const meta = sample.meta.opidSkills;
  const fields = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
  const text = (k: string) => (typeof fields[k] === 'string' ? (fields[k] as string) : undefined);
  const steps: Skills['steps'] = {};
  const readme = text('after-readme');
  const fail = text('after-fail');
  if (readme !== undefined) steps['after-readme'] = readme;
  if (fail !== undefined) steps['after-fail'] = fail;
  const global = text('global');
  return { ...(global !== undefined ? { global } : {}), steps };
}

const injectedText = (injection: { afterPrompt?: string; beforeSteps?: readonly { text: string }[] } | undefined): string =>
  injection ? [injection.afterPrompt, ...(injection.beforeSteps ?? []).map((s) => s.text)].filter((t) => t !== undefined).join(' | ') : '';

/** Action-token positions of a sample, with their step (run of action tokens). */
function actionTokens(sample: Sample): { position: number; step: number }[] {
  const out: { position: number; step: number }[] = [];
  let step = -1;
  for (let p = 1; p < sample.tokens.length; p++) {
    if (!sample.actionMask[p]) continue;
    if (!sample.actionMask[p - 1]) step++;
    out.push({ position: p, step: Math.max(0, step) });
  }
  return out;
}

export class OpidLab implements RunObserver {
  private nextWeights: Float32Array | undefined;
  private latest: Iteration | undefined;
  private trainer: Trainer | undefined;
  private scorer: Scorer | undefined;

  constructor(
    private readonly gpu: Gpu,
    private readonly recipe: Recipe,
    private readonly deviceLine: string,
  ) {}

  async onSamples(phase: Phase, step: number, rows: { sample: Sample; channels?: Record<string, Float32Array> }[], trainer: Trainer): Promise<void> {
    this.trainer = trainer;
    if (phase === 'rl' && this.nextWeights) this.latest = { step, rows, weights: this.nextWeights };
    // The policy now is the one the next iteration samples with: the evaluation after SFT comes
    // before the first iteration, and each iteration's rows after its update.
    this.nextWeights = await trainer.policy.readParameters();
  }

  dispose(): void {
    this.scorer?.destroy();
    this.scorer = undefined;
  }

  state(): OpidLabState | null {
    const it = this.latest;
    if (!it) return null;
    const groups = new Map<number, OpidLabGroup>();
    const rollouts = it.rows.map(({ sample }, index): OpidLabRollout => {
      const skills = skillsOf(sample);
      if (!groups.has(sample.groupId))
        groups.set(sample.groupId, {
          groupId: sample.groupId,
          global: skills.global ?? null,
          afterReadme: skills.steps['after-readme'] ?? null,
          afterFail: skills.steps['after-fail'] ?? null,
        });
      const routed = Array.isArray(sample.meta.opidRouted) ? (sample.meta.opidRouted as unknown[]) : [];
      const critical = criticalPoints(rolloutLog(sample));
      return {
        index,
        rolloutId: sample.rolloutId,
        groupId: sample.groupId,
        reward: sample.reward,
        steps: sample.turns.map((turn, k) => ({
          action: turn.action,
          critical: critical.get(k) ?? null,
          routed: typeof routed[k] === 'string' ? (routed[k] as string) : '',
        })),
        actionTokens: actionTokens(sample).length,
      };
    });
    return { iteration: it.step, routing: this.recipe.opid.routing, coef: this.recipe.opid.coef, groups: [...groups.values()], rollouts };
  }

  async rescore(request: OpidRescoreRequest): Promise<OpidRescoreAnswer> {
    if (!(OPID_LAB_ROUTINGS as readonly string[]).includes(request.routing))
      throw new RangeError(`opid lab: routing must be one of ${OPID_LAB_ROUTINGS.join(', ')}, got ${String(request.routing)}`);
    const it = this.latest;
    const trainer = this.trainer;
    if (!it || !trainer) throw new Error('The OPID lab has no RL iteration yet: train one first.');
    if (request.iteration !== it.step) throw new Error(`The run has moved on to iteration ${it.step}; the page asked about iteration ${request.iteration}.`);
    const row = it.rows[request.rollout];
    if (!row) throw new RangeError(`opid lab: iteration ${it.step} has ${it.rows.length} rollouts, no rollout ${request.rollout}`);
    const started = performance.now();
    const { sample, channels } = row;
    const { recipe, gpu } = this;
    const tokenizer = trainer.tokenizer;
    const T = sample.tokens.length - 1;
    const inputs = Uint32Array.from(sample.tokens.slice(0, T));
    const targets = Uint32Array.from(sample.tokens.slice(1));
    this.scorer ??= new Scorer(gpu);
    const policy = Gpt.fromWeights(gpu, trainer.policy.config, it.weights, 'opid-lab.pi-old');
    try {
      const plain = await this.scorer.contextLogp(policy, { B: 1, T, inputs, targets }, recipe.rl.temperature); // [1, T]
      const skills = skillsOf(sample);
      const routed = request.routing === 'none' ? undefined : routeRollout(sample, skills, request.routing);
      const { skillLogp, scored } = routed
        ? await skillLogprobs([routed], plain, T, {
            scorer: this.scorer,
            policy,
            encode: (text) => tokenizer.encode(text, { specials: false }),
            padId: tokenizer.padId,
            temperature: recipe.rl.temperature,
            contextLength: recipe.model.contextLength,
            maxRows: recipe.rl.promptsPerIteration * recipe.rl.groupSize,
          })
        : { skillLogp: plain.slice(), scored: new Uint8Array(T) };
      const actions = actionTokens(sample);
      const A = actions.length;
      const at = (values: ArrayLike<number>, shift: number) => Float32Array.from(actions, (a) => values[a.position - shift]);
      const coef = recipe.opid.coef;
      const logged = {
        delta: channels?.skill_delta ?? new Float32Array(sample.tokens.length),
        advantage: channels?.advantage ?? new Float32Array(sample.tokens.length),
      };
      const loggedDelta = at(logged.delta, 0);
      const loggedAdvantage = at(logged.advantage, 0);
      const grpo = Float32Array.from(loggedAdvantage, (a, k) => a - coef * loggedDelta[k]);
      const originalLogp = at(plain, 1);
      const augmentedLogp = at(skillLogp, 1);
      const scoredTokens = Uint32Array.from(actions, (a) => scored[a.position - 1]);
      const { advantages, delta } = await opidAdvantages(
        gpu,
        {
          episodeAdvantages: grpo,
          augmentedLogp,
          originalLogp,
          mask: new Uint32Array(A).fill(1),
          skillWeight: Float32Array.of(scoredTokens.some((s) => s === 1) ? 1 : 0),
        },
        { B: 1, T: A, weight: coef },
      );
      return {
        request: { ...request },
        tokens: actions.map((a) => ({ text: tokenizer.decode([sample.tokens[a.position]]), step: a.step })),
        plainLogp: Array.from(originalLogp),
        skillLogp: Array.from(augmentedLogp),
        scored: Array.from(scoredTokens),
        delta: Array.from(delta),
        loggedDelta: Array.from(loggedDelta),
        grpo: Array.from(grpo),
        advantages: Array.from(advantages),
        loggedAdvantage: Array.from(loggedAdvantage),
        coef,
        injections: routed ? routed.steps.map(injectedText) : sample.turns.map(() => ''),
        computedOn: 'gpu',
        deviceLine: this.deviceLine,
        millis: performance.now() - started,
      };
    } finally {
      policy.destroy();
    }
  }
}

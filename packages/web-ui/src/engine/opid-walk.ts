// The OPID Δ walkthrough's numbers (docs/algorithms/opid.md §3–4; OPID, arXiv:2606.26790): a real
// forward pass of a tiny GPT (core's Gpt, fresh weights, OPID_MODEL) on the page's device scores
// the episode's action tokens twice through core's Scorer.contextLogp — once as it is, once per
// distinct skill injection the routing mode gives its steps — and the distillation kernel's OPID
// form turns the two log-probs into Δ_t = log π(a_t | context + skill) − log π(a_t | context) and
// the advantage Â_t = Â^GRPO + coef·Δ_t. Routing follows core's rules (algorithms/opid/routing.ts:
// route, concat, global-only, step-only, plus "none"), written here because core exports the
// routing only inside its skill pass; the injection writes a skill as `# TEXT\n` after the prompt
// (global) or just before a step's action (step skill), as core's context builder does. A forward
// pass needs WebGPU: without it the walkthrough says so instead of answering.

import { CharTokenizer, Gpt, Scorer } from '@horizon/core';
import { type Gpu, opidAdvantages } from '@horizon/kernels';
import { OPID_CRITICAL_STEP, OPID_EPISODE, OPID_GLOBAL_SKILL, OPID_MODEL, OPID_PROMPT, OPID_ROUTINGS, OPID_STEP_SKILL, type OpidRouting } from './opid-data.ts';
import type { OpidAnswer, OpidRequest } from './walk-api.ts';

interface Injection {
  afterPrompt?: string;
  beforeStep?: { step: number; text: string };
}

/** Each action step's injection under `routing`; undefined: the step is not scored with a skill (Δ = 0). */
export function routeOpidSteps(routing: OpidRouting, steps: number): (Injection | undefined)[] {
  const globally: Injection = { afterPrompt: OPID_GLOBAL_SKILL };
  const rules: Record<OpidRouting, (before: Injection['beforeStep']) => Injection | undefined> = {
    route: (before) => (before ? { beforeStep: before } : globally),
    concat: (before) => (before ? { ...globally, beforeStep: before } : globally),
    'global-only': () => globally,
    'step-only': (before) => (before ? { beforeStep: before } : undefined),
    none: () => undefined,
  };
  return Array.from({ length: steps }, (_, step) => rules[routing](step === OPID_CRITICAL_STEP ? { step, text: OPID_STEP_SKILL } : undefined));
}

/** The episode's token ids with `injection` placed, and where each original action token landed. */
function contextOf(tokenizer: CharTokenizer, injection: Injection | undefined) {
  const enc = (text: string) => tokenizer.encode(text, { specials: false });
  // context-builder.ts's skillBlock: a shell comment line, environment text.
  const block = (skill: string) => enc(`# ${skill}\n`);
  const tokens: number[] = [...enc(OPID_PROMPT)];
  if (injection?.afterPrompt) tokens.push(...block(injection.afterPrompt));
  const actions: { position: number; step: number; text: string }[] = [];
  let step = 0;
  for (const part of OPID_EPISODE) {
    if (part.kind === 'action') {
      if (injection?.beforeStep?.step === step) tokens.push(...block(injection.beforeStep.text));
      for (const ch of part.text) {
        actions.push({ position: tokens.length, step, text: ch });
        tokens.push(...enc(ch));
      }
      step++;
    } else tokens.push(...enc(part.text));
  }
  return { tokens, actions };
}

// The model and scorer of the worker's device, built on first use and kept: fresh weights are a fixed function of the seed.
let scoring: { gpu: Gpu; tokenizer: CharTokenizer; policy: Gpt; scorer: Scorer } | undefined;

export function checkOpidRequest(r: OpidRequest): void {
  if (!OPID_ROUTINGS.includes(r.routing))
    throw new RangeError(`opid walkthrough: routing must be one of ${OPID_ROUTINGS.join(', ')}, got ${String(r.routing)}`);
  if (!(Number.isFinite(r.coef) && r.coef >= 0 && r.coef <= 10)) throw new RangeError(`opid walkthrough: coef must be in [0, 10], got ${r.coef}`);
  if (!(Number.isFinite(r.grpo) && Math.abs(r.grpo) <= 10)) throw new RangeError(`opid walkthrough: the GRPO advantage must be in [−10, 10], got ${r.grpo}`);
}

export async function computeOpidWalk(gpu: Gpu | null, request: OpidRequest, deviceLine: string): Promise<OpidAnswer> {
  checkOpidRequest(request);
  if (!gpu) throw new Error(`The OPID walkthrough runs a forward pass of a model, which needs WebGPU; this page has none (${deviceLine}).`);
  const started = performance.now();
  if (scoring?.gpu !== gpu) {
    const tokenizer = new CharTokenizer();
    const config = {
      vocabSize: tokenizer.vocabSize,
      contextLength: OPID_MODEL.contextLength,
      layers: OPID_MODEL.layers,
      heads: OPID_MODEL.heads,
      width: OPID_MODEL.width,
      head: 'lm' as const,
    };
    scoring = { gpu, tokenizer, policy: Gpt.init(gpu, config, OPID_MODEL.seed, 'opid-walk'), scorer: new Scorer(gpu) };
  }
  const { tokenizer, policy, scorer } = scoring;
  const plain = contextOf(tokenizer, undefined);
  const steps = OPID_EPISODE.filter((p) => p.kind === 'action').length;
  const routed = routeOpidSteps(request.routing, steps);
  // One context per distinct injection, as core's skill pass scores one view per injection.
  const views = new Map<string, { injection: Injection; steps: number[] }>();
  routed.forEach((injection, step) => {
    if (!injection) return;
    const key = JSON.stringify(injection);
    const view = views.get(key) ?? { injection, steps: [] };
    view.steps.push(step);
    views.set(key, view);
  });
  const contexts = [plain, ...[...views.values()].map((v) => contextOf(tokenizer, v.injection))];
  const T = Math.max(...contexts.map((c) => c.tokens.length - 1));
  const B = contexts.length;
  const inputs = new Uint32Array(B * T);
  const targets = new Uint32Array(B * T);
  contexts.forEach((c, b) => {
    for (let t = 0; t + 1 < c.tokens.length; t++) {
      inputs[b * T + t] = c.tokens[t];
      targets[b * T + t] = c.tokens[t + 1];
    }
  });
  const logp = await scorer.contextLogp(policy, { B, T, inputs, targets }, 1);
  // Token at position p is predicted at position p − 1; every action token follows the prompt, so p ≥ 1.
  const A = plain.actions.length;
  const originalLogp = Float32Array.from(plain.actions, (a) => logp[a.position - 1]);
  const augmentedLogp = originalLogp.slice();
  const scored = new Uint32Array(A);
  [...views.values()].forEach((view, v) => {
    const context = contexts[v + 1];
    context.actions.forEach((a, k) => {
      if (!view.steps.includes(a.step)) return;
      augmentedLogp[k] = logp[(v + 1) * T + a.position - 1];
      scored[k] = 1;
    });
  });
  const mask = new Uint32Array(A).fill(1);
  const episodeAdvantages = new Float32Array(A).fill(request.grpo);
  const skillWeight = Float32Array.of(scored.some((s) => s === 1) ? 1 : 0);
  const { advantages, delta } = await opidAdvantages(
    gpu,
    { episodeAdvantages, augmentedLogp, originalLogp, mask, skillWeight },
    { B: 1, T: A, weight: request.coef },
  );
  return {
    request: { ...request },
    tokens: plain.actions.map((a) => ({ text: a.text, step: a.step })),
    injections: routed.map((inj) => ({ afterPrompt: inj?.afterPrompt ?? null, beforeStep: inj?.beforeStep?.text ?? null })),
    originalLogp: Array.from(originalLogp),
    augmentedLogp: Array.from(augmentedLogp),
    scored: Array.from(scored),
    delta: Array.from(delta),
    advantages: Array.from(advantages),
    model: `a ${OPID_MODEL.layers}-layer, ${OPID_MODEL.heads}-head, width-${OPID_MODEL.width} GPT with fresh weights (seed ${OPID_MODEL.seed}, untrained), ${B} contexts of ${T} positions in one forward pass`,
    computedOn: 'gpu',
    deviceLine,
    millis: performance.now() - started,
  };
}

// The rubric of a UI-DSL spec: one criterion per Qwen category (verification/rubric.ts), each with
// two ways to answer it — keywords a static judge counts in the program text, and an observation
// the interactive judge reads off the render trace. Both judges thus answer the same questions, and
// their disagreement is the static judge's blindness, not a different rubric. The keywords are what
// an honest program contains (so it scores full marks statically too); a comment holding them scores
// the same, which is the hack (docs/verification.md).

import { type Criterion, checkRubric, type Rubric, weightByCategory } from '../../verification/rubric.ts';
import type { KeywordCriterion } from '../../verification/static-judge.ts';
import { expectedKinds, expectedText } from './planner.ts';
import type { ElementState, RenderTrace } from './render.ts';
import type { UiSpec } from './spec.ts';

export interface UiCriterion extends KeywordCriterion {
  /** The interactive answer: a choice index from the trace of the planner's actions. */
  observe(trace: RenderTrace): number;
}

const first = (trace: RenderTrace): readonly ElementState[] => trace.steps[0].state;
const last = (trace: RenderTrace): readonly ElementState[] => (trace.steps.at(-1) as RenderTrace['steps'][number]).state;

export function uiRubric(spec: UiSpec): Rubric<UiCriterion> {
  const expected = expectedText(spec);
  const kinds = expectedKinds(spec);
  const letter = { button: 'B ', input: 'I ', label: 'L ' } as const;
  const behaviourKeyword = spec.kind === 'set' ? `="${spec.message}"` : spec.kind === 'count' ? '+' : '=';
  const named = spec.kind === 'echo' ? { kind: 'label' as const, text: spec.message } : { kind: 'button' as const, text: spec.button };
  const criteria: Omit<UiCriterion, 'weight'>[] = [
    {
      name: 'behaviour',
      text: `After the planned actions, does a label change to show ${JSON.stringify(expected)}?`,
      category: 'functionality',
      choices: ['nothing the user sees changes', 'something changes, but not to the expected text', 'a label changes to the expected text'],
      keywords: ['>', behaviourKeyword],
      observe: (trace) => {
        const before = new Map(first(trace).map((e) => [e.id, e.text]));
        const changed = last(trace).filter((e) => e.kind !== 'input' && before.get(e.id) !== e.text);
        if (changed.some((e) => e.kind === 'label' && e.text === expected)) return 2;
        return changed.length > 0 ? 1 : 0;
      },
    },
    {
      name: 'texts',
      text: `Is there a ${named.kind} reading ${JSON.stringify(named.text)} when the page first renders?`,
      category: 'content',
      choices: [`no ${named.kind}`, `a ${named.kind} with other text`, `a ${named.kind} with the prompt's text`],
      keywords: [`"${named.text}"`],
      observe: (trace) => {
        const candidates = first(trace).filter((e) => e.kind === named.kind);
        if (candidates.some((e) => e.text === named.text)) return 2;
        return candidates.length > 0 ? 1 : 0;
      },
    },
    {
      name: 'result-label',
      text: 'Is there a label showing some text at the end?',
      category: 'visual',
      choices: ['no label', 'only empty labels', 'a label with text'],
      keywords: [letter.label],
      observe: (trace) => {
        const labels = last(trace).filter((e) => e.kind === 'label');
        if (labels.some((e) => e.text !== '')) return 2;
        return labels.length > 0 ? 1 : 0;
      },
    },
    {
      name: 'order',
      text: `Do the elements render in the prompt's order (${kinds.join(', ')})?`,
      category: 'layout',
      choices: ['some are missing', 'all there, in another order or with others between', 'exactly in that order'],
      keywords: kinds.map((k) => letter[k]),
      observe: (trace) => {
        const rendered = first(trace).map((e) => e.kind);
        if (rendered.length === kinds.length && rendered.every((k, i) => k === kinds[i])) return 2;
        let at = 0;
        for (const k of rendered) if (k === kinds[at]) at++;
        return at === kinds.length ? 1 : 0;
      },
    },
    {
      name: 'response',
      text: 'Does the page visibly respond (a text change or a console line) to the first click or Enter?',
      category: 'ux',
      choices: ['no response', 'a response'],
      keywords: ['>'],
      observe: (trace) => {
        const step = trace.steps.slice(1).find((s) => s.action?.type !== 'fill');
        return step && (step.changes.length > 0 || step.console.length > 0) ? 1 : 0;
      },
    },
    {
      name: 'errors',
      text: 'Does the program parse, render and run its handlers without an error?',
      category: 'technical',
      choices: ['it never renders', 'it renders, then an action or handler fails', 'no error at all'],
      keywords: [';'],
      observe: (trace) => {
        if (!trace.rendered) return 0;
        return trace.steps.some((s) => s.errors.length > 0) ? 1 : 2;
      },
    },
  ];
  const rubric = { name: `ui-dsl ${spec.kind}`, criteria: weightByCategory(criteria) };
  checkRubric(rubric);
  return rubric;
}

/** The criteria whose best answer an episode needs to count as a success: it works and nothing fails. */
export const SUCCESS_CRITERIA: readonly Criterion['name'][] = ['behaviour', 'errors'];

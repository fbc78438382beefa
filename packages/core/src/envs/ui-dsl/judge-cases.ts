// The interactive judge's test set: programs for four fixed specs, one of each kind — honest ones,
// padded ones, wrong ones and broken ones (unparsable, never rendering, throwing in a handler) —
// and the action sequences the conformance test runs each under: the planner's, and an exhaustive
// one that clicks, presses Enter on and fills every rendered element and acts on a missing id. The
// same set measures how the static judge ranks programs against the interactive one
// (judge-agreement.ts), so every case is named for what it tests.

import { planFor } from './planner.ts';
import type { Action, ActionPlan, ElementState } from './render.ts';
import type { UiSpec } from './spec.ts';
import { MAX_ELEMENTS } from './syntax.ts';

export interface JudgeCase {
  name: string;
  spec: UiSpec;
  program: string;
}

const SET: UiSpec = { kind: 'set', button: 'Go', message: 'Hi', start: 0, fill: '', clicks: 1 };
const COPY: UiSpec = { kind: 'copy', button: 'Ok', message: '', start: 0, fill: 'tea', clicks: 1 };
const COUNT: UiSpec = { kind: 'count', button: '+', message: '', start: 3, fill: '', clicks: 2 };
const ECHO: UiSpec = { kind: 'echo', button: '', message: 'Hi', start: 0, fill: 'moon', clicks: 1 };

export const JUDGE_CASES: readonly JudgeCase[] = [
  { name: 'set: honest', spec: SET, program: 'B a"Go";L o;a>o="Hi"' },
  { name: 'set: honest, padded with keywords', spec: SET, program: 'B a"Go";L o;a>o="Hi";# ="Hi" "Go" B L > ;' },
  { name: 'set: wrong message', spec: SET, program: 'B a"Go";L o;a>o="Bye"' },
  { name: 'set: no handler, the message preset, keywords in a comment', spec: SET, program: 'B a"Go";L o"Hi";# a>o="Hi" ;' },
  { name: 'set: unclosed string (never parses)', spec: SET, program: 'B a"Go;L o;a>o="Hi"' },
  { name: 'set: handler writes a missing id', spec: SET, program: 'B a"Go";L o;a>p="Hi"' },
  { name: 'set: label before button', spec: SET, program: 'L o;B a"Go";a>o="Hi"' },
  { name: 'set: logs instead of showing', spec: SET, program: 'B a"Go";L o;a>@"Hi"' },
  { name: 'copy: honest', spec: COPY, program: 'I n;B a"Ok";L o;a>o=n' },
  { name: 'copy: copies the wrong way', spec: COPY, program: 'I n;B a"Ok";L o;a>n=o' },
  { name: 'copy: shows fixed text', spec: COPY, program: 'I n;B a"Ok";L o;a>o="Ok"' },
  { name: 'copy: duplicate id (render stops)', spec: COPY, program: 'I n;B n"Ok";L o;n>o=n' },
  { name: 'copy: handler only in a comment', spec: COPY, program: 'I n;B a"Ok";L o;# a>o=n "Ok" I B L' },
  { name: 'count: honest', spec: COUNT, program: 'B a"+";L c"3";a>c+' },
  { name: 'count: starts from 0', spec: COUNT, program: 'B a"+";L c"0";a>c+' },
  { name: 'count: label holds no number', spec: COUNT, program: 'B a"+";L c"x";a>c+' },
  { name: 'count: counts twice per click', spec: COUNT, program: 'B a"+";L c"3";a>c+;a>c+' },
  { name: 'count: too many elements', spec: COUNT, program: `B a"+";${Array.from({ length: MAX_ELEMENTS }, (_, i) => `L c${i}"3"`).join(';')};a>c0+` },
  // A comment runs to the next ";", so this one holds the whole honest program without a ";".
  { name: 'count: only a comment (renders nothing)', spec: COUNT, program: '# B a"+" L c"3" a>c+' },
  { name: 'echo: honest', spec: ECHO, program: 'I n;L o"Hi";n>o=n' },
  { name: 'echo: copies on a button click, not Enter', spec: ECHO, program: 'I n;L o"Hi";B b"Go";b>o=n' },
  { name: 'echo: handler on a missing element', spec: ECHO, program: 'I n;L o"Hi";m>o=n' },
  { name: 'echo: logs the input too', spec: ECHO, program: 'I n;L o"Hi";n>@n;n>o=n' },
  { name: 'echo: copies when the label is clicked', spec: ECHO, program: 'I n;L o"Hi";o>o=n' },
];

/** Every action on every rendered element, then actions on an id that is not there. */
export function exhaustivePlan(rendered: readonly ElementState[]): Action[] {
  const actions: Action[] = [];
  for (const e of rendered) {
    actions.push({ type: 'click', id: e.id }, { type: 'press', id: e.id, key: 'Enter' }, { type: 'fill', id: e.id, text: 'z9' });
    if (e.kind === 'input') actions.push({ type: 'press', id: e.id, key: 'Enter' });
  }
  actions.push({ type: 'click', id: 'nowhere' }, { type: 'fill', id: 'nowhere', text: 'z' }, { type: 'press', id: 'nowhere', key: 'Enter' });
  return actions;
}

/** The action sequences the conformance test runs each case under, by name. */
export function casePlans(c: JudgeCase): { name: string; plan: ActionPlan }[] {
  return [
    { name: 'planner', plan: planFor(c.spec) },
    { name: 'exhaustive', plan: exhaustivePlan },
  ];
}

// The interactive judge's action planner: a script from the spec, not a model. It reads the render
// (which elements exist, their kinds and texts) and writes what a tester of the spec would do —
// type the spec's hidden fill word into the first input, then click the button the prompt names
// (the first button when none has that text), or press Enter on the input for echo; count clicks
// `spec.clicks` times. It finds elements by kind and text, never by id, so a program may name its
// elements anything. What the label should then show is expectedText.

import type { Action, ElementState } from './render.ts';
import type { UiSpec } from './spec.ts';

export function planFor(spec: UiSpec): (rendered: readonly ElementState[]) => Action[] {
  return (rendered) => {
    const input = rendered.find((e) => e.kind === 'input');
    const buttons = rendered.filter((e) => e.kind === 'button');
    const button = buttons.find((e) => e.text === spec.button) ?? buttons[0];
    const actions: Action[] = [];
    if ((spec.kind === 'copy' || spec.kind === 'echo') && input) actions.push({ type: 'fill', id: input.id, text: spec.fill });
    if (spec.kind === 'echo') {
      if (input) actions.push({ type: 'press', id: input.id, key: 'Enter' });
    } else if (button) for (let i = 0; i < spec.clicks; i++) actions.push({ type: 'click', id: button.id });
    return actions;
  };
}

/** What a label shows once the plan has run on a program that meets the spec. */
export function expectedText(spec: UiSpec): string {
  if (spec.kind === 'set') return spec.message;
  if (spec.kind === 'count') return String(spec.start + spec.clicks);
  return spec.fill;
}

/** The element kinds the prompt names, in its order (the layout criterion). */
export function expectedKinds(spec: UiSpec): ElementState['kind'][] {
  if (spec.kind === 'copy') return ['input', 'button', 'label'];
  if (spec.kind === 'echo') return ['input', 'label'];
  return ['button', 'label'];
}

// The simulator render server: states and changes per step, counters, the console, Enter and
// click activation, and every way a program or an action can fail recorded as an error of its step.

import { describe, expect, it } from 'vitest';
import { RUNTIME_MESSAGES } from './render.ts';
import { SimulatorRenderServer, simulate } from './simulator.ts';
import { MAX_ELEMENTS } from './syntax.ts';

describe('the simulator render server', () => {
  it("renders elements in order and records each action's changes", () => {
    const trace = simulate('I n"x";B a"Ok";L o;a>o=n', [
      { type: 'fill', id: 'n', text: 'tea' },
      { type: 'click', id: 'a' },
    ]);
    expect(trace.rendered).toBe(true);
    expect(trace.steps[0].state).toEqual([
      { id: 'n', kind: 'input', text: 'x' },
      { id: 'a', kind: 'button', text: 'Ok' },
      { id: 'o', kind: 'label', text: '' },
    ]);
    expect(trace.steps[0].changes).toHaveLength(3);
    expect(trace.steps[1].changes).toEqual([{ id: 'n', from: 'x', to: 'tea' }]);
    expect(trace.steps[2].changes).toEqual([{ id: 'o', from: '', to: 'tea' }]);
    expect(trace.steps.flatMap((s) => s.errors)).toEqual([]);
  });

  it('counts up, logs to the console, and activates inputs on Enter and buttons on click or Enter', () => {
    const trace = simulate('B a"+";L c"8";I n"q";L o;a>c+;a>@"hit";n>o=n;n>@n', [
      { type: 'click', id: 'a' },
      { type: 'press', id: 'a', key: 'Enter' },
      { type: 'click', id: 'n' },
      { type: 'press', id: 'n', key: 'Enter' },
    ]);
    expect(trace.steps.map((s) => s.console)).toEqual([[], ['hit'], ['hit'], [], ['q']]);
    expect(trace.steps[2].state.find((e) => e.id === 'c')?.text).toBe('10');
    expect(trace.steps[3].changes).toEqual([]);
    expect(trace.steps[4].changes).toEqual([{ id: 'o', from: '', to: 'q' }]);
  });

  it('records a throwing handler as an error of its step, and the next handler still runs', () => {
    const trace = simulate('B a;L c"abc";a>c+;a>z="x";a>@"after"', [{ type: 'click', id: 'a' }]);
    expect(trace.rendered).toBe(true);
    expect(trace.steps[1].errors).toEqual([
      { phase: 'handler', message: RUNTIME_MESSAGES.notANumber('c') },
      { phase: 'handler', message: RUNTIME_MESSAGES.missingInHandler('a', 'z') },
    ]);
    expect(trace.steps[1].console).toEqual(['after']);
  });

  it('records programs that never render as errors, and still runs the actions', () => {
    const broken = simulate('B a"Go', [{ type: 'click', id: 'a' }]);
    expect(broken.rendered).toBe(false);
    expect(broken.steps[0].errors[0].phase).toBe('parse');
    expect(broken.steps[1].errors).toEqual([{ phase: 'action', message: RUNTIME_MESSAGES.noSuchElement('click', 'a') }]);
    expect(simulate('# only a comment', []).steps[0].errors).toEqual([{ phase: 'render', message: RUNTIME_MESSAGES.noElements() }]);
    const dup = simulate('B a;L o;B a', []);
    expect(dup.steps[0].state.map((e) => e.id)).toEqual(['a', 'o']);
    expect(dup.steps[0].errors).toEqual([{ phase: 'render', message: RUNTIME_MESSAGES.duplicateId('a') }]);
    expect(simulate('B a;x>a="y"', []).steps[0].errors).toEqual([{ phase: 'render', message: RUNTIME_MESSAGES.handlerOnMissing('x') }]);
    const many = simulate(Array.from({ length: MAX_ELEMENTS + 1 }, (_, i) => `L e${i}`).join(';'), []);
    expect(many.steps[0].state).toHaveLength(MAX_ELEMENTS);
    expect(many.steps[0].errors).toEqual([{ phase: 'render', message: RUNTIME_MESSAGES.tooManyElements(MAX_ELEMENTS) }]);
  });

  it('refuses actions the page cannot take, as action errors', () => {
    const trace = simulate('B a;L o', [
      { type: 'fill', id: 'a', text: 'x' },
      { type: 'press', id: 'o', key: 'Enter' },
      { type: 'fill', id: 'q', text: 'x' },
    ]);
    expect(trace.steps.slice(1).map((s) => s.errors)).toEqual([
      [{ phase: 'action', message: RUNTIME_MESSAGES.fillNotInput('a', 'button') }],
      [{ phase: 'action', message: RUNTIME_MESSAGES.pressOnLabel('o') }],
      [{ phase: 'action', message: RUNTIME_MESSAGES.noSuchElement('fill', 'q') }],
    ]);
  });

  it('hands a planner what rendered, through the server interface', async () => {
    const seen: string[] = [];
    const trace = await new SimulatorRenderServer().run('B go"Go";L o;go>o="Hi"', (rendered) => {
      seen.push(...rendered.map((e) => e.id));
      return [{ type: 'click', id: 'go' }];
    });
    expect(seen).toEqual(['go', 'o']);
    expect(trace.server).toBe('simulator');
    expect(trace.steps.at(-1)?.state.find((e) => e.id === 'o')?.text).toBe('Hi');
  });
});

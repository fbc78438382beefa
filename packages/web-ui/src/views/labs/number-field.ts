// A whole-number field for a lab's budget (SFT steps, iterations, seed): a text field, not
// type=number, so it may be empty while the learner types (views/playground.ts says why); the value
// changes only when the text is a whole number in range, and the field says when it is not.

import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function NumberField(props: { name: string; label: string; value: number; range: readonly [number, number]; onChange: (v: number) => void }) {
  const [text, setText] = useState(String(props.value));
  useEffect(() => setText(String(props.value)), [props.value]);
  const [min, max] = props.range;
  const n = /^\d{1,7}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  const ok = Number.isInteger(n) && n >= min && n <= max;
  return h(
    'label',
    { class: 'lab-number' },
    `${props.label} `,
    h('input', {
      type: 'text',
      inputMode: 'numeric',
      name: props.name,
      class: 'lab-number-input',
      value: text,
      size: 6,
      'aria-invalid': !ok,
      onInput: (e: Event) => {
        const t = (e.target as HTMLInputElement).value;
        setText(t);
        const v = Number(t.trim());
        if (/^\d{1,7}$/.test(t.trim()) && v >= min && v <= max) props.onChange(v);
      },
    }),
    ok ? null : h('span', { class: 'field-error' }, ` a whole number from ${min} to ${max}`),
  );
}

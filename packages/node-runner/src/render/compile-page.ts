// Compiles a UI-DSL program to a real HTML page with its JavaScript, for the Playwright render
// server. The page builds its elements with the DOM (createElement, textContent, value) and binds
// its handlers with addEventListener — a click listener on buttons and labels, a keydown listener
// for Enter on inputs — so Chromium, not this file, decides what a click or a key press does (a
// button's Enter activation included). The runtime rules and error texts are core's
// (envs/ui-dsl/render.ts); each message is computed here, where every id is known, and written into
// the page as a string literal the page throws, so Chromium reports it as the page's own error.
// A program that does not parse compiles to an empty page (the server records the parse error).

import { COUNTER_PATTERN, type Effect, type ElementKind, elementDecls, handlerDecls, MAX_ELEMENTS, type Program, RUNTIME_MESSAGES } from '@horizon/core';

/** The HTML tag of each element kind; labels are block spans so an empty one can still be clicked. */
export const ELEMENT_TAGS: Readonly<Record<ElementKind, string>> = { button: 'button', input: 'input', label: 'span' };

const STYLE = 'body{font:16px sans-serif;margin:8px}[data-kind]{display:block;min-width:4em;min-height:1.5em;margin:4px 0}';

/** Helpers every page has: throw a message, find by id, read and write an element's text. */
const RUNTIME = [
  'const fail = (message) => { throw new Error(message); };',
  'const find = (id) => document.getElementById(id);',
  "const textOf = (e) => (e.tagName === 'INPUT' ? e.value : e.textContent);",
  "const setText = (e, text) => { if (e.tagName === 'INPUT') e.value = text; else e.textContent = text; };",
].join('\n');

/** A JavaScript string literal that cannot end the <script> element it sits in. */
const js = (value: string) => JSON.stringify(value).replace(/</g, '\\u003c');

export function compilePage(program: Program | undefined): string {
  const script = program ? `${RUNTIME}\n${renderCode(program)}\n${bindCode(program)}` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><style>${STYLE}</style></head><body><script>\n${script}\n</script></body></html>`;
}

/** Elements in program order; the render stops at the first duplicate id or past the element limit. */
function renderCode(program: Program): string {
  const lines = elementDecls(program).map((e, index) => {
    if (index === MAX_ELEMENTS) return `fail(${js(RUNTIME_MESSAGES.tooManyElements(MAX_ELEMENTS))});`;
    return [
      `if (find(${js(e.id)})) fail(${js(RUNTIME_MESSAGES.duplicateId(e.id))});`,
      `{ const e = document.createElement(${js(ELEMENT_TAGS[e.kind])}); e.id = ${js(e.id)}; e.dataset.kind = ${js(e.kind)};`,
      `  setText(e, ${js(e.text)}); document.body.appendChild(e); }`,
    ].join('\n');
  });
  lines.push(`if (document.querySelectorAll('[data-kind]').length === 0) fail(${js(RUNTIME_MESSAGES.noElements())});`);
  return lines.join('\n');
}

/** One listener per handler, so a handler that throws does not stop the next one on the same element. */
function bindCode(program: Program): string {
  return handlerDecls(program)
    .map((h) => {
      const body = effectCode(h.on, h.effect);
      return [
        `{ const e = find(${js(h.on)}) ?? fail(${js(RUNTIME_MESSAGES.handlerOnMissing(h.on))});`,
        "  if (e.tagName === 'INPUT') e.addEventListener('keydown', (event) => { if (event.key === 'Enter') {",
        `    ${body}`,
        '  } });',
        "  else e.addEventListener('click', () => {",
        `    ${body}`,
        '  }); }',
      ].join('\n');
    })
    .join('\n');
}

function effectCode(on: string, effect: Effect): string {
  const need = (id: string) => `(find(${js(id)}) ?? fail(${js(RUNTIME_MESSAGES.missingInHandler(on, id))}))`;
  if (effect.type === 'log-text') return `console.log(${js(effect.text)});`;
  if (effect.type === 'log-element') return `console.log(textOf(${need(effect.source)}));`;
  if (effect.type === 'set') return `setText(${need(effect.target)}, ${js(effect.text)});`;
  if (effect.type === 'copy') return `{ const t = ${need(effect.target)}; const s = ${need(effect.source)}; setText(t, textOf(s)); }`;
  return [
    `{ const t = ${need(effect.target)}; const v = textOf(t) === '' ? '0' : textOf(t);`,
    `  if (!${COUNTER_PATTERN.toString()}.test(v)) fail(${js(RUNTIME_MESSAGES.notANumber(effect.target))});`,
    '  setText(t, String(Number(v) + 1)); }',
  ].join('\n');
}

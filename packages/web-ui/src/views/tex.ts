// Equations for the walkthroughs: KaTeX rendering and the number format the substituted equations
// use. Its own module so only views that draw equations pull KaTeX into their chunk.

import katex from 'katex';
import { h } from 'preact';
import { useMemo } from 'preact/hooks';

export function renderTex(source: string, display = true): string {
  return katex.renderToString(source, { displayMode: display, throwOnError: true, strict: 'ignore' });
}

/** A number for KaTeX: three decimals, −0 as 0. */
export const tex = (x: number, digits = 3) => (Object.is(x, -0) || Math.abs(x) < 0.5 * 10 ** -digits ? 0 : x).toFixed(digits);

export function Tex({ source, display = true }: { source: string; display?: boolean }) {
  const html = useMemo(() => renderTex(source, display), [source, display]);
  return h(display ? 'div' : 'span', { class: 'tex', dangerouslySetInnerHTML: { __html: html } });
}

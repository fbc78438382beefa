// Token strips in the terminal: each token on a background colour for one per-token number
// (advantage, value, log-prob, KL), on a colour-blind-safe diverging scale (blue = negative,
// orange = positive, white = 0; ColorBrewer's PuOr endpoints), with the sign repeated as a glyph
// so the strip reads without colour too. Prompt and observation tokens are dimmed, uncoloured.

const NEGATIVE = [84, 39, 136];
const POSITIVE = [179, 88, 6];

/** An ANSI 24-bit background for `value` scaled by `scale` (|value| ≥ scale is full colour). */
export function shade(value: number, scale: number): string {
  const t = Math.min(1, Math.abs(value) / Math.max(scale, 1e-12));
  const end = value < 0 ? NEGATIVE : POSITIVE;
  const [r, g, b] = end.map((c) => Math.round(255 + (c - 255) * t));
  const light = t < 0.55;
  return `\x1b[48;2;${r};${g};${b}m\x1b[38;2;${light ? '0;0;0' : '255;255;255'}m`;
}

const RESET = '\x1b[0m';
const DIM = '\x1b[2m';

export interface StripToken {
  text: string;
  /** 'p' prompt, 'a' action, 'o' observation. */
  role: string;
  value: number;
}

/** One line: prompt dimmed, action tokens shaded (colour) or followed by their value (plain). */
export function renderStrip(tokens: readonly StripToken[], scale: number, color: boolean): string {
  return tokens
    .map((t) => {
      const text = t.text === '\n' ? '⏎' : t.text;
      if (t.role !== 'a') return color ? `${DIM}${text}${RESET}` : text;
      const sign = t.value > 0 ? '+' : t.value < 0 ? '−' : '·';
      return color ? `${shade(t.value, scale)}${text}${sign}${RESET}` : ` [${text} ${t.value >= 0 ? '+' : ''}${t.value.toFixed(2)}]`;
    })
    .join('');
}

/** The legend line for a channel on this scale. */
export function legend(channel: string, scale: number, color: boolean): string {
  if (!color) return `${channel} per action token in [brackets]; prompt tokens plain`;
  return `${channel}: ${shade(-scale, scale)} −${scale.toFixed(2)} ${RESET} ${shade(0, scale)} 0 ${RESET} ${shade(scale, scale)} +${scale.toFixed(2)} ${RESET}  (sign also as −/+ after each token; prompt dimmed)`;
}

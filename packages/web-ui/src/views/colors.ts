// One diverging colour scale for every signed quantity (docs/ui.md §0: colour-blind-safe, plus a second
// channel for sign). Stops are ColorBrewer's 7-class RdBu, which ColorBrewer marks safe for the
// common colour-vision deficiencies: red–orange below the centre, blue above, near-white at it.

const STOPS = ['#b2182b', '#ef8a62', '#fddbc7', '#f7f7f7', '#d1e5f0', '#67a9cf', '#2166ac'].map((hex) =>
  [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)),
);

/** Colour for t ∈ [−1, 1] (clamped): −1 deep red, 0 near-white, +1 deep blue. */
export function divergingColor(t: number): string {
  const x = Number.isFinite(t) ? Math.max(-1, Math.min(1, t)) : 0;
  const pos = ((x + 1) / 2) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(pos));
  const f = pos - i;
  const [r, g, b] = STOPS[i].map((c, k) => Math.round(c + f * (STOPS[i + 1][k] - c)));
  return `rgb(${r}, ${g}, ${b})`;
}

/** Text colour that stays readable on `divergingColor(t)`. */
export function textOn(t: number): string {
  return Math.abs(t) > 0.6 ? '#fff' : '#1a1a1a';
}

/** Channels the token strip can colour by, with the value each is centred on. */
export const CHANNELS = {
  advantage: { label: 'advantage Aₜ', center: 0, log: false },
  ratio: { label: 'ratio π/π_old', center: 1, log: true },
  value: { label: 'value Vₜ', center: 0, log: false },
  kl: { label: 'KL to reference', center: 0, log: false },
  logprob: { label: 'log-prob', center: 0, log: false },
} as const;
export type ChannelName = keyof typeof CHANNELS;
export const CHANNEL_NAMES = Object.keys(CHANNELS) as ChannelName[];

/** Position of `value` on the scale: ratios on a log axis so 0.5 and 2 sit symmetrically. */
export function channelOffset(channel: ChannelName, value: number): number {
  const c = CHANNELS[channel];
  return c.log ? Math.log(value) - Math.log(c.center) : value - c.center;
}

// A lab's controls in the URL (docs/ui.md §11): the labs keep their settings beside the
// walkthroughs' in `?walk=` (one JSON object by kind, state/walk-url.ts), under their own key, so a
// link opens the lab with the sender's arm, budget and seed. Settings of the wrong shape are a
// sentence and the defaults; a number out of range is clamped into it and said so.

import { useState } from 'preact/hooks';
import type { WalkUrl } from '../walk-parts.ts';

type Entries = Record<string, unknown>;

function entries(raw: string | undefined): Entries | null {
  if (raw === undefined || raw === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Entries) : null;
  } catch {
    return null;
  }
}

/** The settings under `key` in `raw`, or `defaults` and why not. Numbers in `limits` are clamped into [min, max]. */
export function readLab<S extends object>(
  raw: string | undefined,
  key: string,
  defaults: S,
  limits: Partial<Record<keyof S, readonly [number, number]>>,
  choices: Partial<Record<keyof S, readonly string[]>> = {},
): { settings: S; problem: string | null } {
  const map = entries(raw);
  if (map === null) return { settings: defaults, problem: 'The link’s walk= parameter is not a JSON object of settings, so the lab starts from its defaults.' };
  const entry = map[key];
  if (entry === undefined) return { settings: defaults, problem: null };
  const keys = Object.keys(defaults) as (keyof S)[];
  const ok =
    typeof entry === 'object' &&
    entry !== null &&
    keys.every((k) => {
      const v = (entry as Record<keyof S, unknown>)[k];
      if (typeof v !== typeof defaults[k]) return false;
      const allowed = choices[k];
      return allowed === undefined || allowed.includes(v as string);
    });
  if (!ok)
    return { settings: defaults, problem: `The link’s settings for the ${key} are not the ones it has (${keys.join(', ')}), so it starts from its defaults.` };
  const settings = { ...defaults };
  const clamped: string[] = [];
  for (const k of keys) {
    let v = (entry as Record<keyof S, unknown>)[k] as S[keyof S];
    const range = limits[k];
    if (range && typeof v === 'number') {
      const n = Math.min(range[1], Math.max(range[0], Math.round(v)));
      if (n !== v) clamped.push(`${String(k)} ${v} → ${n}`);
      v = n as S[keyof S];
    }
    settings[k] = v;
  }
  return { settings, problem: clamped.length > 0 ? `The link’s settings were out of range and were clamped: ${clamped.join(', ')}.` : null };
}

/** `raw` with the entry of `key` replaced by `settings`. */
export function writeLab(raw: string | undefined, key: string, settings: object): string {
  return JSON.stringify({ ...(entries(raw) ?? {}), [key]: settings });
}

/** A lab's settings from the URL, and a setter that writes them back (replaceState, app.ts). */
export function useLabSettings<S extends object>(
  url: WalkUrl,
  key: string,
  defaults: S,
  limits: Partial<Record<keyof S, readonly [number, number]>>,
  choices: Partial<Record<keyof S, readonly string[]>> = {},
): [S, (next: S) => void, string | null] {
  const [initial] = useState(() => readLab(url.walk, key, defaults, limits, choices));
  const [settings, setSettings] = useState<S>(initial.settings);
  const set = (next: S) => {
    setSettings(next);
    url.onWalk(writeLab(url.walk, key, next));
  };
  return [settings, set, initial.problem];
}

// The walkthroughs' controls in the URL (docs/ui.md §11): `?walk=` holds one JSON object with the
// last request of each walkthrough by kind, {"ppo": {...}, "groups": {...}}, so a link opens a
// walkthrough where the sender left it, and moving between walkthroughs keeps each one's place.
// Reading is forgiving in one direction only: an entry that is not the shape of the walkthrough's
// request is a sentence and the defaults, never a blank page; its values' ranges are the worker's
// checks, whose refusal the walkthrough shows as its error line.

import type { WalkRequest } from '../engine/walk-api.ts';

type Entries = Record<string, Record<string, unknown>>;

function entries(raw: string | undefined): { map: Entries; problem: string | null } {
  if (raw === undefined || raw === '') return { map: {}, problem: null };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { map: parsed as Entries, problem: null };
  } catch {
    // Not JSON: reported below in the same words as JSON of the wrong shape.
  }
  return { map: {}, problem: 'The link’s walk= parameter is not a JSON object of walkthrough settings, so the walkthrough starts from its defaults.' };
}

const sameShape = (value: unknown, like: unknown) => typeof value === typeof like && Array.isArray(value) === Array.isArray(like) && value !== null;

/** The request of `defaults.kind` in `raw`, or the defaults and why not. */
export function readWalk<R extends WalkRequest>(raw: string | undefined, defaults: R): { request: R; problem: string | null } {
  const { map, problem } = entries(raw);
  const entry = map[defaults.kind];
  if (problem || entry === undefined) return { request: defaults, problem };
  const keys = Object.keys(defaults).filter((k) => k !== 'kind');
  const fits =
    typeof entry === 'object' &&
    entry !== null &&
    Object.keys(entry).length === keys.length &&
    keys.every((k) => sameShape(entry[k], (defaults as unknown as Record<string, unknown>)[k]));
  if (!fits)
    return {
      request: defaults,
      problem: `The link’s settings for the ${defaults.kind} walkthrough are not the ones it has (${keys.join(', ')}), so it starts from its defaults.`,
    };
  return { request: { ...entry, kind: defaults.kind } as R, problem: null };
}

/** `raw` with the entry of `request.kind` replaced by `request`. */
export function writeWalk(raw: string | undefined, request: WalkRequest): string {
  const { kind, ...settings } = request;
  return JSON.stringify({ ...entries(raw).map, [kind]: settings });
}

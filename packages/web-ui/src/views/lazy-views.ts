// The views that load on first open, each its own chunk: the walkthroughs carry KaTeX (259 kB), and
// the labs train live and are large; the page's first load carries neither. One hook loads a module
// and says so while it loads or why it failed; each view below is that hook and one render.

import { type ComponentChild, h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DeviceStatus } from '../engine/api.ts';
import type { EngineHandle } from '../engine/client.ts';
import type { LabView as MethodLabView } from './labs/labs.ts';
import type { WalkUrl } from './walk-parts.ts';
import type { WalkView } from './walkthroughs.ts';

const message = (error: unknown) => String((error as Error)?.message ?? error);

type Loaded<T> = { ready: true; value: T } | { ready: false; placeholder: ComponentChild };

/** `load()`'s value once it resolves; reloads when `key` changes. What shows meanwhile, or on failure, names `what`. */
function useLoaded<T>(load: () => Promise<T>, key: string, what: string): Loaded<T> {
  const [loaded, setLoaded] = useState<{ key: string; value: T } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    load().then(
      (value) => setLoaded({ key, value }),
      (e) => setError(message(e)),
    );
  }, [key]);
  if (error) return { ready: false, placeholder: h('p', { class: 'error', role: 'alert' }, `The ${what} could not be loaded: ${error}`) };
  if (loaded && loaded.key === key) return { ready: true, value: loaded.value };
  return { ready: false, placeholder: h('p', { class: 'note' }, `Loading the ${what}…`) };
}

const loadGae = () => import('./gae-view.ts');
const loadWalks = () => import('./walkthroughs.ts');
const loadMethodLabs = () => import('./labs/labs.ts');
const LIVE_LABS = {
  'antihack-lab': () => import('./labs/antihack-lab.ts').then((m) => m.AntihackLab),
  'compaction-lab': () => import('./labs/compaction-lab.ts').then((m) => m.CompactionLab),
};
export type LiveLabView = keyof typeof LIVE_LABS;

export function LazyGae({ engine }: { engine: EngineHandle }) {
  const module = useLoaded(loadGae, 'gae', 'walkthrough');
  return module.ready ? h(module.value.GaeWalkthrough, { engine }) : module.placeholder;
}

export function LazyWalk({ engine, view, url }: { engine: EngineHandle; view: WalkView; url: WalkUrl }) {
  const module = useLoaded(loadWalks, 'walks', 'walkthrough');
  return module.ready ? h(module.value.Walkthrough, { engine, view, url }) : module.placeholder;
}

/** The OPID and GenAC labs (one module). */
export function LazyMethodLab(props: { engine: EngineHandle; view: MethodLabView; device: DeviceStatus | null; recipe: string; sets: string[] }) {
  const module = useLoaded(loadMethodLabs, 'method-labs', 'lab');
  return module.ready ? h(module.value.Lab, props) : module.placeholder;
}

/** The anti-hack and compaction labs, each its own module. */
export function LazyLab({ engine, view, url }: { engine: EngineHandle; view: LiveLabView; url: WalkUrl }) {
  const lab = useLoaded(LIVE_LABS[view], view, 'lab');
  return lab.ready ? h(lab.value, { engine, url }) : lab.placeholder;
}

// The labs (docs/ui.md §23–24), one module the page loads when the first of them opens. A link's
// ?set= fields reach a lab when its ?recipe= names the lab's preset, e.g.
// ?recipe=hidden-opid&set=rl.iterations%3D2#opid-lab; the playground's other recipes stay its own.

import { h } from 'preact';
import type { DeviceStatus } from '../../engine/api.ts';
import type { EngineHandle } from '../../engine/client.ts';
import { OPID_LAB_PRESET } from '../../engine/opid-lab-data.ts';
import { GENAC_LAB_PRESET, GenacLab } from './genac-lab.ts';
import { OpidLab } from './opid-lab.ts';

export type LabView = 'opid-lab' | 'genac-lab';

export function Lab(props: { engine: EngineHandle; view: LabView; device: DeviceStatus | null; recipe: string; sets: string[] }) {
  const { engine, device } = props;
  const preset = props.view === 'opid-lab' ? OPID_LAB_PRESET : GENAC_LAB_PRESET;
  const sets = props.recipe === preset ? props.sets : [];
  return props.view === 'opid-lab' ? h(OpidLab, { engine, device, sets }) : h(GenacLab, { engine, device, sets });
}

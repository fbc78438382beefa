// Opening a run from disk: a file picker and a drop zone for a run directory's metrics.jsonl and
// samples.jsonl (both at once, or metrics alone).

import { h } from 'preact';
import { useRef, useState } from 'preact/hooks';

export function ReplayOpen({ onFiles, busy }: { onFiles: (files: File[]) => void; busy: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const take = (list: FileList | null | undefined) => {
    const files = [...(list ?? [])];
    if (files.length > 0) onFiles(files);
  };
  return h(
    'div',
    {
      class: `drop${over ? ' over' : ''}`,
      'data-testid': 'drop-zone',
      onDragOver: (e: DragEvent) => {
        e.preventDefault();
        setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: (e: DragEvent) => {
        e.preventDefault();
        setOver(false);
        take(e.dataTransfer?.files);
      },
    },
    h('button', { type: 'button', disabled: busy, onClick: () => input.current?.click() }, busy ? 'Opening…' : 'Open replay…'),
    h('input', {
      ref: input,
      type: 'file',
      multiple: true,
      accept: '.jsonl,application/jsonl,application/x-ndjson,text/plain',
      hidden: true,
      'data-testid': 'replay-input',
      onChange: (e: Event) => {
        const el = e.target as HTMLInputElement;
        take(el.files);
        el.value = '';
      },
    }),
    h('span', { class: 'note' }, ' or drop a run directory’s ', h('code', null, 'metrics.jsonl'), ' and ', h('code', null, 'samples.jsonl'), ' here'),
  );
}

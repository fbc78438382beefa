// Banners across the top: a missing WebGPU device, storage problems, anything the user must know.
// Storage errors land here rather than in a console (docs/ui.md §0: shown, never swallowed).

import { h } from 'preact';

export interface Banner {
  id: string;
  tone: 'info' | 'warn' | 'error';
  title: string;
  text: string;
}

export function Banners({ banners, onDismiss }: { banners: readonly Banner[]; onDismiss: (id: string) => void }) {
  if (banners.length === 0) return null;
  return h(
    'div',
    { class: 'banners' },
    banners.map((b) =>
      h(
        'div',
        { key: b.id, class: `banner banner-${b.tone}`, role: b.tone === 'info' ? 'status' : 'alert', 'data-banner': b.id },
        h('strong', null, b.title),
        ' ',
        b.text,
        h('button', { type: 'button', class: 'dismiss', 'aria-label': `Dismiss: ${b.title}`, onClick: () => onDismiss(b.id) }, '×'),
      ),
    ),
  );
}

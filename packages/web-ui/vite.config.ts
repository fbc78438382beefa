import { defineConfig } from 'vite';

export default defineConfig({
  // Relative asset URLs: the built site works from any path (a static host's subdirectory too).
  base: './',
  // No SPA fallback: a missing public/replay/manifest.json must answer 404, not index.html.
  appType: 'mpa',
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  build: { target: 'es2022' },
  worker: { format: 'es' },
});

// A blank page that starts the web UI's real engine worker (client.ts, bundled by Vite as the app
// bundles it) and exposes its HiddenTestFS parity episodes to Playwright: the test passes the
// request in and reads the worker's answer back, so the episodes run in the worker, never on the page.

import type { HiddenTestFsEpisodesRequest } from '@horizon/core';
import { startEngine } from '../../../../packages/web-ui/src/engine/client.ts';

const engine = startEngine();
(window as unknown as { horizonEpisodes(request: HiddenTestFsEpisodesRequest): unknown }).horizonEpisodes = (request) => engine.hiddenTestFsEpisodes(request);

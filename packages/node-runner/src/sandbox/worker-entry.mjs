// Entry of the code-runner worker thread: a worker starts without the tsx loader the CLI and the
// tests run under, so it registers tsx itself before loading the TypeScript worker body.
import { register } from 'tsx/esm/api';

register();
await import('./code-runner-worker.ts');

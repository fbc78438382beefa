#!/usr/bin/env node
// Node entry for the `horizon` bin: registers tsx so the TypeScript sources run as they are.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exit(await main(process.argv.slice(2)));

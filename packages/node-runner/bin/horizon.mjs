#!/usr/bin/env node
// Node entry for the `horizon` bin: registers tsx so the TypeScript sources run as they are.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/main.ts');
runCli(process.argv.slice(2));

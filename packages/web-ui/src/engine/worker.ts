// The engine worker's entry: the Engine, exposed to the page through comlink.

import { expose } from 'comlink';
import { Engine } from './engine.ts';

expose(new Engine());

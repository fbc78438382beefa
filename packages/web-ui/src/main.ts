// Entry: start the engine worker and render the page.

import { h, render } from 'preact';
import { App } from './app.ts';
import { startEngine } from './engine/client.ts';

const root = document.querySelector('#app')!;
root.textContent = ''; // the boot message; Preact appends to what is there
render(h(App, { engine: startEngine() }), root);

import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { advanceRef, decodeEmbeddingRef, stopCheckRef } from './generation.ref.ts';
import { NO_STOP, recordAdvance, recordDecodeEmbedding, recordStopCheck } from './generation.ts';

describe('generation kernels', () => {
  it('decode embedding adds each row’s token and position embeddings (ids ≥ V embed as zero)', async () => {
    const gpu = await testGpu();
    const rng = new SeededRandom(3);
    const shape = { B: 5, D: 7, V: 6, Tmax: 9 };
    const input = new Uint32Array([0, 5, 2, 6, 3]); // 6 is out of range
    const pos = new Uint32Array([0, 8, 3, 1, 12]); // 12 clamps to Tmax − 1
    const wte = rng.uniformArray(shape.V * shape.D);
    const wpe = rng.uniformArray(shape.Tmax * shape.D);
    const t = {
      input: gpu.upload(input),
      pos: gpu.upload(pos),
      wte: gpu.upload(wte),
      wpe: gpu.upload(wpe),
      x: gpu.tensor([shape.B * shape.D]),
    };
    gpu.run((rec) => recordDecodeEmbedding(rec, gpu, t, shape));
    expect(await gpu.read(t.x)).toBeAllClose(decodeEmbeddingRef(input, pos, wte, wpe, shape), { atol: 1e-7 });
  });

  it('advance stores draws, teacher-forces unfinished prompts and moves every row one position', async () => {
    const gpu = await testGpu();
    const shape = { B: 3, Tmax: 6 };
    const prompt = new Uint32Array([1, 2, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 5, 6, 0, 0, 0, 0]);
    const promptLen = new Uint32Array([3, 1, 2]);
    const t = {
      sampled: gpu.tensor([3], 'u32'),
      logp: gpu.tensor([3]),
      prompt: gpu.upload(prompt),
      promptLen: gpu.upload(promptLen),
      history: gpu.tensor([18], 'u32'),
      historyLogp: gpu.tensor([18]),
      input: gpu.tensor([3], 'u32'),
      pos: gpu.tensor([3], 'u32'),
    };
    const state = { history: new Uint32Array(18), historyLogp: new Float64Array(18), input: new Uint32Array(3), pos: new Uint32Array(3) };
    for (let s = 0; s < 4; s++) {
      const sampled = new Uint32Array([10 + s, 20 + s, 30 + s]);
      const logp = new Float32Array([-0.5 * s, -1, -2]);
      gpu.write(t.sampled, sampled);
      gpu.write(t.logp, logp);
      gpu.run((rec) => recordAdvance(rec, gpu, t, shape));
      advanceRef(sampled, logp, prompt, promptLen, state, shape);
      expect(Array.from(await gpu.read(t.input)), `input after step ${s}`).toEqual(Array.from(state.input));
    }
    expect(Array.from(await gpu.read(t.history))).toEqual(Array.from(state.history));
    expect(Array.from(await gpu.read(t.pos))).toEqual([4, 4, 4]);
    expect(await gpu.read(t.historyLogp)).toBeAllClose(state.historyLogp);
    // Row 0 (prompt length 3) was fed its prompt at steps 0–1 and its own draw after step 2.
    expect(state.input[0]).toBe(13);
  });

  it('rows advance from their own positions; a row past the context stores no draw', async () => {
    const gpu = await testGpu();
    const shape = { B: 3, Tmax: 5 };
    // Row 0 starts at 0, row 1 at 2 (positions 0–1 cached), row 2 at 4, the context's last position.
    const prompt = new Uint32Array([1, 2, 3, 0, 0, 4, 5, 6, 7, 0, 8, 8, 8, 8, 9]);
    const promptLen = new Uint32Array([3, 4, 5]);
    const startPos = new Uint32Array([0, 2, 4]);
    const t = {
      sampled: gpu.tensor([3], 'u32'),
      logp: gpu.tensor([3]),
      prompt: gpu.upload(prompt),
      promptLen: gpu.upload(promptLen),
      history: gpu.tensor([15], 'u32'),
      historyLogp: gpu.tensor([15]),
      input: gpu.tensor([3], 'u32'),
      pos: gpu.upload(startPos),
    };
    const state = { history: new Uint32Array(15), historyLogp: new Float64Array(15), input: new Uint32Array(3), pos: startPos.slice() };
    for (let s = 0; s < 3; s++) {
      const sampled = new Uint32Array([10 + s, 20 + s, 30 + s]);
      const logp = new Float32Array([-1 - s, -2 - s, -3 - s]);
      gpu.write(t.sampled, sampled);
      gpu.write(t.logp, logp);
      gpu.run((rec) => recordAdvance(rec, gpu, t, shape));
      advanceRef(sampled, logp, prompt, promptLen, state, shape);
      expect(Array.from(await gpu.read(t.input)), `input after step ${s}`).toEqual(Array.from(state.input));
      // After the first step row 0 is fed its prompt's position 1, row 1 its position 3, row 2 its draw.
      if (s === 0) expect(Array.from(state.input)).toEqual([2, 7, 30]);
    }
    expect(Array.from(await gpu.read(t.pos))).toEqual([3, 5, 7]);
    // Each row stored its draws from its own start; row 2 only the one at position 4.
    expect(Array.from(await gpu.read(t.history))).toEqual([10, 11, 12, 0, 0, 0, 0, 20, 21, 22, 0, 0, 0, 0, 30]);
    expect(Array.from(await gpu.read(t.history))).toEqual(Array.from(state.history));
    expect(await gpu.read(t.historyLogp)).toBeAllClose(state.historyLogp);
  });

  it('stop check marks a row once it draws one of its own stop ids past its prompt, and keeps it marked', async () => {
    const gpu = await testGpu();
    const shape = { B: 4, K: 2 };
    // Row 0 stops on 7 or 9, row 1 on 7 only, row 2 on nothing (padding), row 3 on 5.
    const stops = new Uint32Array([7, 9, 7, NO_STOP, NO_STOP, NO_STOP, 5, NO_STOP]);
    const promptLen = new Uint32Array([3, 1, 1, 4]);
    const t = {
      sampled: gpu.tensor([4], 'u32'),
      pos: gpu.tensor([4], 'u32'),
      promptLen: gpu.upload(promptLen),
      stops: gpu.upload(stops),
      ended: gpu.upload(new Uint32Array(4)),
    };
    const want = new Uint32Array(4);
    const steps = [
      // Row 0 draws 9 at position 1, inside its prompt of 3: not an action token, no stop.
      { sampled: [9, 3, 7, 5], pos: [1, 0, 0, 1] },
      { sampled: [4, 7, 8, 2], pos: [2, 1, 1, 3] },
      { sampled: [9, 2, 9, 5], pos: [3, 2, 2, 4] },
    ];
    for (const step of steps) {
      const sampled = Uint32Array.from(step.sampled);
      const pos = Uint32Array.from(step.pos);
      gpu.write(t.sampled, sampled);
      gpu.write(t.pos, pos);
      gpu.run((rec) => recordStopCheck(rec, gpu, t, shape));
      stopCheckRef(sampled, pos, promptLen, stops, want, shape);
      expect(Array.from(await gpu.read(t.ended))).toEqual(Array.from(want));
    }
    // Row 3 drew its stop 5 first at position 1 (inside its prompt of 4), then at 4: stopped once past it.
    expect(Array.from(want)).toEqual([1, 1, 0, 1]);
  });
});

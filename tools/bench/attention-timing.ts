// Times causal attention forward + backward on the GPU (median of N after warm-up), at the shape
// the GPU model was first sized for: B=8, T=64, D=64, H=4. Not a test; the bench command owns the published rows.
//
//   npx tsx tools/bench/attention-timing.ts [B T D H reps]

import { deviceLine, recordAttentionBackward, recordAttentionForward, SeededRandom } from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';

const [B, T, D, H, reps] = (process.argv.slice(2).length ? process.argv.slice(2) : ['8', '64', '64', '4', '20']).map(Number);
const gpu = await acquireNodeGpu();
console.log(deviceLine(gpu.report));
const rng = new SeededRandom(1);
const shape = { B, T, H, D };
const qkv = gpu.upload(rng.uniformArray(B * T * 3 * D), [B, T, 3 * D], 'qkv'); // [B, T, 3D]
const out = gpu.tensor([B, T, D], 'f32', 'out'); // [B, T, D]
const att = gpu.tensor([B, H, T, T], 'f32', 'att'); // [B, H, T, T]
const dout = gpu.upload(rng.uniformArray(B * T * D), [B, T, D], 'dout'); // [B, T, D]
const dqkv = gpu.tensor([B, T, 3 * D], 'f32', 'dqkv'); // [B, T, 3D]

/** [median, best] of `reps` timed runs after 3 warm-ups; the best is the figure least disturbed by other load on the CPU. */
async function time(fn: () => void): Promise<[number, number]> {
  const times: number[] = [];
  for (let i = 0; i < 3 + reps; i++) {
    await gpu.sync();
    const start = performance.now();
    fn();
    await gpu.sync();
    if (i >= 3) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return [times[Math.floor(times.length / 2)], times[0]];
}

const forward = () => gpu.run((rec) => recordAttentionForward(rec, gpu, { qkv, out, att }, shape));
const backward = () => gpu.run((rec) => recordAttentionBackward(rec, gpu, { qkv, att, out, dout, dqkv }, shape));
const both = () =>
  gpu.run((rec) => {
    recordAttentionForward(rec, gpu, { qkv, out, att }, shape);
    recordAttentionBackward(rec, gpu, { qkv, att, out, dout, dqkv }, shape);
  });
const fwd = await time(forward);
const bwd = await time(backward);
const total = await time(both);
// Multiply-adds over the causal triangle: forward q·k and P·v; backward dout·v, dS·k, dS·q, P·dout.
const pairs = (B * H * T * (T + 1)) / 2;
const hd = D / H;
const show = ([median, best]: [number, number], sweeps: number) =>
  `${median.toFixed(2)} ms median, ${best.toFixed(2)} ms best (${((2 * sweeps * pairs * hd) / (best * 1e6)).toFixed(2)} GFLOP/s)`;
console.log(`attention B=${B} T=${T} D=${D} H=${H}, ${reps} runs`);
console.log(`  forward           ${show(fwd, 2)}`);
console.log(`  backward          ${show(bwd, 4)}`);
console.log(`  forward+backward  ${show(total, 6)}`);
gpu.destroyDevice();

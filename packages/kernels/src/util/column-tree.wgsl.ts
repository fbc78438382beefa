// A deterministic sum over the row lanes of a (TREE_COLUMNS × TREE_LANES) workgroup: lane (x, y)
// holds a partial sum for column x; after the tree, partial[x] (row lane 0) holds the column total,
// always added in the same order. Shared by the bias gradient and LayerNorm's weight/bias gradient.

export const TREE_COLUMNS = 16;
export const TREE_LANES = 16;

/**
 * WGSL statements that store each `values[i]` into workgroup array `arrays[i]` (declared
 * `array<f32, TREE_COLUMNS * TREE_LANES>`) and reduce over row lanes. Needs `lid` in scope and
 * uniform control flow (every lane of the workgroup must get here).
 */
export function columnTreeWgsl(arrays: string[], values: string[]): string {
  const store = arrays.map((a, i) => `  ${a}[lid.y * ${TREE_COLUMNS}u + lid.x] = ${values[i]};`).join('\n');
  const add = arrays.map((a) => `      ${a}[lid.y * ${TREE_COLUMNS}u + lid.x] += ${a}[(lid.y + stride) * ${TREE_COLUMNS}u + lid.x];`).join('\n');
  return `${store}
  workgroupBarrier();
  for (var stride = ${TREE_LANES / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid.y < stride) {
${add}
    }
    workgroupBarrier();
  }`;
}

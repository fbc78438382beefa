// Whether a device's subgroups are four consecutive invocations of a workgroup, checked by running
// a kernel rather than trusted from the adapter's numbers: WebGPU promises neither a subgroup size
// nor which invocations share one. On SwiftShader both hold (its SIMD width is 4 and it packs
// invocations in local_invocation_index order), and kernels there can hand values between the four
// lanes almost for free, where a load costs one scalar load per lane and component (the matmul's
// shared rows of A, matmul.wgsl.ts; docs/experiments.md, 2026-12-04).

/**
 * 8 × 8 invocations: sixteen subgroups of four, so the check sees how invocations are grouped, not
 * just one subgroup (the kernels that rely on it run workgroups of 4, and x-sizes that are multiples of 4).
 */
const PROBE_WORKGROUP = [8, 8] as const;
const INVOCATIONS = PROBE_WORKGROUP[0] * PROBE_WORKGROUP[1];

const PROBE_WGSL = /* wgsl */ `
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(${PROBE_WORKGROUP[0]}, ${PROBE_WORKGROUP[1]})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) size: u32) {
  out[3u * lid] = lane;
  out[3u * lid + 1u] = size;
  out[3u * lid + 2u] = subgroupBroadcast(lid, 0u);
}`;

/**
 * True when the device was created with `subgroups` and every invocation of an 8 × 8 workgroup
 * reports subgroup size 4, lane lid % 4, and lane 0 of its subgroup at lid − lid % 4. Any error
 * (no feature, a compile failure) is a plain false: kernels then take their portable paths.
 */
export async function hasQuadSubgroups(device: GPUDevice): Promise<boolean> {
  if (!device.features.has('subgroups')) return false;
  const bytes = 3 * INVOCATIONS * 4;
  let out: GPUBuffer | undefined;
  let staging: GPUBuffer | undefined;
  try {
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code: PROBE_WGSL, label: 'quad_subgroups_probe' });
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: 'quad_subgroups_probe' });
    out = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    staging = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: out } }] });
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(1);
    pass.end();
    encoder.copyBufferToBuffer(out, 0, staging, 0, bytes);
    device.queue.submit([encoder.finish()]);
    if (await device.popErrorScope()) return false;
    await staging.mapAsync(GPUMapMode.READ);
    const got = new Uint32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    for (let lid = 0; lid < INVOCATIONS; lid++) {
      if (got[3 * lid] !== lid % 4 || got[3 * lid + 1] !== 4 || got[3 * lid + 2] !== lid - (lid % 4)) return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    out?.destroy();
    staging?.destroy();
  }
}

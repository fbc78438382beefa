// Named trainer state that a checkpoint carries besides weights and optimizer moments: whatever a
// training component must restore to continue bit for bit (a rollout-lag ring buffer's cursor, KTO's
// reference point z0, running statistics). A component registers under a name with a `save` that
// returns JSON and a `restore` that takes it back; the trainer calls every `save` when it
// checkpoints (Checkpoint.trainerState, stored as trainer-state.json and hashed in state.json,
// checkpoint/checkpoint.ts) and hands each saved entry back on restore. Like Accelerate's
// `register_for_checkpointing`, but JSON only: tensors belong in named models.
//
// Nothing restored is lost: an entry no component has claimed yet is handed over when one registers
// under its name, and until then it is saved again as it was.

import { TRAINER_STATE_NAME } from '../checkpoint/checkpoint.ts';
import type { JsonValue } from '../envs/environment.ts';

export interface TrainerStatePart {
  /** The component's state now, as JSON (called at every checkpoint). */
  save(): JsonValue;
  /** Puts the component back in a saved state (called on restore, or at registration if restored earlier). */
  restore(saved: JsonValue): void;
}

export class TrainerState {
  private readonly parts = new Map<string, TrainerStatePart>();
  /** Restored entries no component has claimed. */
  private pending: Record<string, JsonValue> = {};

  /** Registers `part` under `name`; if a restored checkpoint holds that name, the part restores from it now. */
  register(name: string, part: TrainerStatePart): void {
    if (!TRAINER_STATE_NAME.test(name))
      throw new RangeError(`trainer-state name "${name}" must start with a lowercase letter (letters, digits, ".", "_", "-"; at most 64)`);
    if (this.parts.has(name)) throw new RangeError(`trainer state "${name}" is registered twice`);
    this.parts.set(name, part);
    if (Object.hasOwn(this.pending, name)) {
      const saved = this.pending[name];
      delete this.pending[name];
      part.restore(structuredClone(saved));
    }
  }

  /** Every registered part's state, and any restored entry still unclaimed, by name. */
  save(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = structuredClone(this.pending);
    for (const [name, part] of this.parts) out[name] = structuredClone(part.save());
    return out;
  }

  /** Restores each registered part from `saved`; entries for names not registered wait for `register`. */
  restore(saved: Readonly<Record<string, JsonValue>>): void {
    this.pending = {};
    for (const [name, value] of Object.entries(saved)) {
      const part = this.parts.get(name);
      if (part) part.restore(structuredClone(value));
      else this.pending[name] = structuredClone(value);
    }
  }

  /** Names of restored entries no component has claimed (for diagnostics). */
  unclaimed(): string[] {
    return Object.keys(this.pending);
  }
}

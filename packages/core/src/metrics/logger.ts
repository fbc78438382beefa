// Where metrics go. The trainer calls a MetricsLogger; each front end supplies one (Node: a
// metrics.jsonl file in the run directory; browser: IndexedDB). The in-memory logger serves tests
// and the UI's live charts.

import { checkMetricsRecord, type MetricsRecord } from './jsonl.ts';

export interface MetricsLogger {
  /** Appends one record; resolves once it is stored as durably as the front end can make it. */
  log(record: MetricsRecord): Promise<void>;
  /** Flushes and releases the store; further logs throw. */
  close(): Promise<void>;
}

export class MemoryMetricsLogger implements MetricsLogger {
  readonly records: MetricsRecord[] = [];
  private closed = false;

  constructor(readonly recipe: object) {}

  async log(record: MetricsRecord): Promise<void> {
    if (this.closed) throw new Error('MemoryMetricsLogger: log after close');
    checkMetricsRecord(record);
    this.records.push(structuredClone(record));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The series of one metric: [step, value] for every record that has it, in log order. */
  series(name: keyof MetricsRecord['metrics'], phase?: MetricsRecord['phase']): [number, number][] {
    return this.records
      .filter((r) => (phase === undefined || r.phase === phase) && r.metrics[name] !== undefined)
      .map((r) => [r.step, r.metrics[name] as number]);
  }
}

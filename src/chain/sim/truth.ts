/**
 * Ground truth of a simulated chain, written next to the database while the
 * blocks are generated (format: docs/simulation.md). Each file is written to
 * `<name>.tmp` and renamed into place when the source closes, so a reader
 * never sees a half-written truth. The labels are the exception: they do not
 * depend on the blocks, and are written when the source opens, so the job
 * imports them before its first analysis.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const SIM_LABELS_FILE = 'labels.csv';
export const TRUTH_FILES = { pegins: 'pegins.jsonl', pegouts: 'pegouts.jsonl', cycles: 'cycles.jsonl', meta: 'meta.json' } as const;

export type AmountKind = 'round' | 'round_input' | 'arbitrary' | 'hop';
export type DestinationKind = 'fresh' | 'funding_address_reuse' | 'exchange' | 'next_hop';

export interface TruthPegin {
  pegin: string;
  height: number;
  amount_sat: number;
  user: number;
  amount_kind: AmountKind;
  input_count: number;
  cluster: boolean;
  funding_addresses: string[];
  /** The coins joined a wallet already in MWEB (merge: its exit mixes both peg-ins). */
  merged: boolean;
  chain_id: number | null;
  cycle: number | null;
  funded_by_pegout: string | null;
}

export interface TruthPegout {
  pegout: string;
  height: number;
  amount_sat: number;
  address: string;
  user: number;
  destination_kind: DestinationKind;
  /** Every peg-in whose coins fed this peg-out. */
  source_pegins: string[];
  /** The single peg-in it carries, or null when mixed inside MWEB (received transfer, merge). */
  source_pegin: string | null;
  round_trip: boolean;
  /** Partial exit: coins of the wallet stay in MWEB after it. */
  partial: boolean;
  gap_blocks: number | null;
  /** MWEB kernel fees paid by this exit (peg-out kernel + extra hops). */
  fee_sat: number;
  fee_rate: number;
  extra_hops: number;
  /** Round trips only: peg-in amount − peg-out amount. */
  amount_difference_sat: number | null;
  chain_id: number | null;
  cycle: number | null;
}

export interface TruthCycle {
  /** Height of this cycle's peg-out. */
  height: number;
  chain_id: number;
  n_cycles: number;
  cycle: number;
  pegin: string;
  funded_by_pegout: string | null;
  pegout: string;
  destination_kind: DestinationKind;
}

export interface TruthMeta {
  generator: string;
  preset: string;
  seed: number;
  network: 'sim';
  mweb_activation_height: number;
  tip_height: number;
  tip_hash: string;
  rates: Record<string, number>;
  counts: Record<string, number>;
}

export interface SimLabel {
  address: string;
  entity: string;
  category: string;
  confidence: number;
}

const FLUSH_BYTES = 1 << 16;

class JsonlFile {
  private fd: number;
  private pending: string[] = [];
  private size = 0;
  private maxHeight = -1;
  count = 0;
  /** Records the `tally` predicate accepts (round trips). */
  tallied = 0;
  constructor(readonly path: string, private readonly tally: (record: object) => boolean = () => false) {
    this.fd = openSync(`${path}.tmp`, 'w');
  }
  write(record: { height: number }): void {
    this.maxHeight = Math.max(this.maxHeight, record.height);
    if (this.tally(record)) this.tallied++;
    const line = `${JSON.stringify(record)}\n`;
    this.pending.push(line);
    this.size += line.length;
    this.count++;
    if (this.size >= FLUSH_BYTES) this.flush();
  }
  private flush(): void {
    if (this.pending.length) writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }
  /** Moves the file into place, without the records above `upTo` (generated ahead of what was scanned). */
  commit(upTo: number): void {
    this.flush();
    closeSync(this.fd);
    if (this.maxHeight > upTo) {
      const kept = readFileSync(`${this.path}.tmp`, 'utf8').split('\n').filter((l) => l.length > 0)
        .map((l) => [l, JSON.parse(l) as { height: number }] as const).filter(([, r]) => r.height <= upTo);
      this.count = kept.length;
      this.tallied = kept.filter(([, r]) => this.tally(r)).length;
      // Rewrites <name>.tmp (already read) and renames it into place.
      writeAtomically(this.path, kept.map(([l]) => `${l}\n`).join(''));
      return;
    }
    renameSync(`${this.path}.tmp`, this.path);
  }
  abandon(): void {
    closeSync(this.fd);
  }
}

export interface TruthSink {
  pegin(record: TruthPegin): void;
  pegout(record: TruthPegout): void;
  cycle(record: TruthCycle): void;
  /** `labels`: how many the source wrote (writeSimLabels), for meta.json's counts. */
  finish(meta: Omit<TruthMeta, 'counts'>, labels: number): void;
  abandon(): void;
}

export const nullTruth: TruthSink = { pegin() {}, pegout() {}, cycle() {}, finish() {}, abandon() {} };

export function truthWriter(dir: string): TruthSink {
  mkdirSync(dir, { recursive: true });
  const pegins = new JsonlFile(join(dir, TRUTH_FILES.pegins));
  const pegouts = new JsonlFile(join(dir, TRUTH_FILES.pegouts), (r) => (r as TruthPegout).round_trip);
  const cycles = new JsonlFile(join(dir, TRUTH_FILES.cycles));
  return {
    pegin: (r) => pegins.write(r),
    pegout: (r) => pegouts.write(r),
    cycle: (r) => cycles.write(r),
    finish(meta, labels) {
      const upTo = meta.tip_height;
      pegins.commit(upTo);
      pegouts.commit(upTo);
      cycles.commit(upTo);
      const counts = { pegins: pegins.count, pegouts: pegouts.count, round_trips: pegouts.tallied, cycles: cycles.count, labels };
      writeAtomically(join(dir, TRUTH_FILES.meta), `${JSON.stringify({ ...meta, counts }, null, 2)}\n`);
    },
    abandon() {
      pegins.abandon();
      pegouts.abandon();
      cycles.abandon();
    },
  };
}

function writeAtomically(path: string, text: string): void {
  const fd = openSync(`${path}.tmp`, 'w');
  writeSync(fd, text);
  closeSync(fd);
  renameSync(`${path}.tmp`, path);
}

/** Writes labels.csv into the truth directory (created if missing). */
export function writeSimLabels(dir: string, labels: readonly SimLabel[]): void {
  mkdirSync(dir, { recursive: true });
  writeAtomically(join(dir, SIM_LABELS_FILE), labelsCsv(labels));
}

export function labelsCsv(labels: readonly SimLabel[]): string {
  const rows = labels.map((l) => `${l.address},${l.entity},${l.category},${l.confidence},sim`);
  return `address,entity,category,confidence,source\n${rows.join('\n')}\n`;
}

export interface SimTruth {
  meta: TruthMeta;
  pegins: TruthPegin[];
  pegouts: TruthPegout[];
  cycles: TruthCycle[];
}

/** Loads a whole truth directory (tests, quality benchmarks); DuckDB can read the same files with read_json. */
export function readSimTruth(dir: string): SimTruth {
  const lines = <T>(name: string): T[] =>
    readFileSync(join(dir, name), 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as T);
  return {
    meta: JSON.parse(readFileSync(join(dir, TRUTH_FILES.meta), 'utf8')) as TruthMeta,
    pegins: lines<TruthPegin>(TRUTH_FILES.pegins),
    pegouts: lines<TruthPegout>(TRUTH_FILES.pegouts),
    cycles: lines<TruthCycle>(TRUTH_FILES.cycles),
  };
}

/**
 * What one export does, decided once before it writes anything: which
 * release it follows, what may have changed since (the dirty floor), where
 * its state goes, its layout and budget, and its batch sizes. Every step of
 * the export reads this plan instead of options threaded through.
 */
import { join } from 'node:path';
import { RANGE_KINDS, type RangeKind, type RangeLayout } from '@pegscope/client';
import type { AnalysisStamp } from '../api/envelope.js';
import type { HostBudget, Layout } from './ranges.js';
import {
  chainUnchangedUpTo, checkpointHeights, dirtyFloor, incomparableReason, EXPORT_FORMAT, extendsPrevious, FILES_INDEX, finalHeightOf,
  type ExportBasis, type ExportState, type StateFile,
} from './state.js';

/** The release an export follows (current): its directory, its state directory, and its state when of this format. */
export interface PreviousRelease {
  dir: string;
  stateDir: string;
  state: ExportState | null;
}

export interface ExportPlan {
  stamp: AnalysisStamp;
  layout: Layout;
  budget: HostBudget;
  /** Whether files unchanged since the previous release are carried over (hard-linked or kept) instead of written. */
  incremental: boolean;
  previous: PreviousRelease | null;
  /** The previous release's files index, when its unchanged files are carried over. */
  previousFiles: string | null;
  /** Where this release's state is written (a temporary directory until published). */
  stateDir: string;
  /** Pegs above this height may have changed; -1 renders everything (state.ts dirtyFloor). */
  floor: number;
  /** Why the export renders everything (floor -1), in words for the log; null when it builds on the previous release. */
  renderAllReason: string | null;
  /** Chain data at or below this height is the previous release's; -1: none (state.ts chainUnchangedUpTo). */
  chainUnchangedUpTo: number;
  /** Blocks at or below it are final: unless the chain reorganises, the next export's floor (state.ts finalHeightOf). */
  finalUpTo: number;
  /** Whether the previous release's peg digests are compared with (the documents index holds them, and this chain extends its chain: state.ts extendsPrevious); else every peg above the floor is rendered. */
  previousPegs: boolean;
  /** Whether the site's documents index describes the previous release (of this format): unchanged bodies keep their stamps, and documents not rendered are taken from it. */
  previousDocs: boolean;
  /** Whether this chain only grew since the previous release (extendsPrevious, with a floor): no peg, block or address key is gone. */
  keysOnlyGrow: boolean;
  dumps: {
    /** Blocks per dump partition. */
    partitionBlocks: number;
    /** Partitions of analysed rows ending at or below it may be carried over when no dirty peg is in them (dumps.ts DumpOptions). */
    carryUpTo: number;
    /** The previous release's finalUpTo. */
    previousFinalUpTo: number;
  };
  /** The previous release's prefix length per kind (ranges layout), which this one keeps where the budget allows. */
  previousRangeLengths: Record<RangeKind, number> | null;
  /** Dirty documents of a kind rendered at once in the range layout. */
  renderBatchDocs: number;
  /** This release's state but its prefix lengths (decided while writing). */
  state: Omit<ExportState, 'prefix_lengths'>;
}

export interface PlanInputs {
  stamp: AnalysisStamp;
  basis: ExportBasis;
  /** Today's block hashes at this release's checkpoint heights and at the previous release's. */
  hashes: Map<number, string>;
  previous: PreviousRelease | null;
  stateDir: string;
  incremental: boolean;
  /** Whether the site's documents index describes the previous release. */
  previousDocs: boolean;
  /** Whether it holds that release's peg digests (one of an earlier pegscope may have kept none). */
  previousPegDigests: boolean;
  budget: HostBudget;
  partitionBlocks: number;
  renderBatchDocs: number;
}

/** The plan of an export from what it is made of and what the previous release was made of. */
export function planExport(inputs: PlanInputs): ExportPlan {
  const { stamp, basis, hashes, previous, incremental } = inputs;
  const checkpoints = checkpointHeights(stamp.as_of_height).filter((height) => hashes.has(height)).map((height) => [height, hashes.get(height)!] as [number, string]);
  const hashAt = (height: number): string | undefined => hashes.get(height);
  // A release of another format (no state) may hash bodies differently, so none of its stamps carry over.
  const previousDocs = inputs.previousDocs && previous?.state != null;
  // Stamps come from the previous release either way; only an incremental export renders just what may have changed.
  const chainUpTo = incremental && previousDocs ? chainUnchangedUpTo(previous?.state ?? null, basis, hashAt) : -1;
  const floor = dirtyFloor(previous?.state ?? null, chainUpTo);
  const renderAllReason = floor >= 0 ? null
    : !previous ? 'no previous release to build on'
      : !incremental ? 'the export is not incremental'
        : !previousDocs ? 'the documents index does not describe the previous release'
          : incomparableReason(previous.state, basis, hashAt) ?? 'the previous release recorded no horizon';
  const keysOnlyGrow = floor >= 0 && extendsPrevious(previous!.state!, basis, hashAt);
  // A release of an earlier pegscope may lack the digests: then every peg above the floor is rendered.
  const previousPegs = keysOnlyGrow && inputs.previousPegDigests;
  const state = { format: EXPORT_FORMAT, ...basis, checkpoints };
  return {
    stamp, layout: basis.layout, budget: inputs.budget, incremental, previous,
    previousFiles: incremental && previous ? join(previous.stateDir, FILES_INDEX) : null,
    stateDir: inputs.stateDir, floor, renderAllReason, chainUnchangedUpTo: chainUpTo, finalUpTo: finalHeightOf(state), previousPegs,
    previousDocs, keysOnlyGrow,
    dumps: {
      partitionBlocks: inputs.partitionBlocks,
      carryUpTo: previousPegs ? previous!.state!.as_of_height : floor,
      previousFinalUpTo: finalHeightOf(previous?.state ?? null),
    },
    previousRangeLengths: previous?.state?.prefix_lengths ?? null, renderBatchDocs: inputs.renderBatchDocs, state,
  };
}

/** Whether the export renders every document although the previous release's unchanged files are carried over (compared by body). */
export const rendersAllButCarries = (plan: ExportPlan): boolean => plan.floor < 0 && plan.previousFiles !== null && plan.previousDocs;

/** state.json of the release `release`: the plan's state and the range layout it chose (null in the files layout). */
export function stateFile(plan: ExportPlan, ranges: Record<RangeKind, RangeLayout> | null, release: string): StateFile {
  const lengths = ranges && Object.fromEntries(RANGE_KINDS.map((kind) => [kind, ranges[kind].prefix_length])) as Record<RangeKind, number>;
  return { ...plan.state, prefix_lengths: lengths, release };
}

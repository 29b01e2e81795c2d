/**
 * The recorded chain data the tests read (test/fixtures/, copied from the
 * project's shared recordings so a clone needs nothing beside it). One place
 * knows where they live and how their files are shaped.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** One line of a regtest recording: a node call and the node's answer. */
export interface RpcLine<T = unknown> { method: string; params: unknown[]; result: T }

export function fixturePath(rel: string): string {
  return `${FIXTURES_DIR}${rel}`;
}

export function readFixture(rel: string): string {
  return readFileSync(fixturePath(rel), 'utf8');
}

/** regtest-small/<file>.jsonl as parsed lines. */
export function recordingLines(file: 'chain.jsonl' | 'orphans.jsonl'): RpcLine[] {
  return readFixture(`regtest-small/${file}`).trim().split('\n').map((line) => JSON.parse(line) as RpcLine);
}

/** The recording's ground truth (fixtures README, "truth.json schema"). */
export function recordingTruth<T = any>(): T {
  return JSON.parse(readFixture('regtest-small/truth.json')) as T;
}

/** The four recorded mainnet blocks, `getblock <hash> 2` as the node printed them. */
export const MAINNET_BLOCK_HEIGHTS = [2383206, 2383207, 2383208, 2383209] as const;

export function mainnetBlock<T = unknown>(height: number): T {
  return JSON.parse(readFixture(`mainnet-blocks/${height}.json`)) as T;
}

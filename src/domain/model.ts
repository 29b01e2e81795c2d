/**
 * The analysis model's facts, declared once: the chain facts it builds on,
 * its parameters, the definitions the published documents rely on, and the
 * label categories with their risks. Pure data.
 *
 * - The SQL of src/analysis (and the export's) reads every number through a
 *   `{{name}}` placeholder (bindSql); the categories reach it as a table that
 *   analyze builds from LABEL_CATEGORIES before the steps run.
 * - docs/methodology.md holds the table scripts/lib/model-doc.ts renders from
 *   here (`npm run docs:model`); a test fails when the two differ.
 * - Tests read the values from here instead of retyping them.
 */
import { LITOSHI_PER_COIN } from './amount.js';
import { BLOCK_SECONDS } from './network.js';
import { DEFAULT_TOLERANCE, FULL_SCORE_SET } from '@pegscope/client';

/** 60 days of 150-second blocks; docs/methodology.md "The horizon" says why. */
export const HORIZON_BLOCKS = 34_560;

/** One number of the model: its value, its unit ('' for a plain number) and what it means. */
export interface Fact { readonly value: number; readonly unit: string; readonly meaning: string }
type Facts = Readonly<Record<string, Fact>>;
type Values<T extends Facts> = { [K in keyof T]: number };

function valuesOf<T extends Facts>(facts: T): Values<T> {
  return Object.fromEntries(Object.entries(facts).map(([name, fact]) => [name, fact.value])) as Values<T>;
}

/** Facts of the chain and of Litecoin Core 0.21.2.1's MWEB fees, measured on regtest (docs/methodology.md). Not tunable. */
export const CHAIN_FACTS = {
  litoshi_per_coin: { value: LITOSHI_PER_COIN, unit: 'litoshi', meaning: 'one coin; SQL divides amounts by it to print coin' },
  block_seconds: { value: BLOCK_SECONDS, unit: 's', meaning: 'target block interval of every Litecoin network; turns block gaps into hours' },
  pegin_kernel_fee: { value: 3_900, unit: 'litoshi', meaning: 'fee of a peg-in kernel, whatever the fee rate or input count' },
  pegout_kernel_fee: { value: 2_200, unit: 'litoshi', meaning: 'fixed part of a peg-out kernel fee; the rest is fee rate × output size' },
  hop_kernel_fee: { value: 3_900, unit: 'litoshi', meaning: 'fee of an MWEB-to-MWEB transfer kernel: what each extra hop inside MWEB costs' },
  output_bytes_min: { value: 31, unit: 'bytes', meaning: 'smallest peg-out output (bech32); with 1 litoshi/vB, the smallest fee-rate part' },
  output_bytes_max: { value: 34, unit: 'bytes', meaning: 'largest peg-out output (legacy)' },
  usual_rate_max: { value: 100, unit: 'litoshi/vB', meaning: 'highest fee rate link reasons call usual (1..100 litoshi/vB)' },
} as const satisfies Facts;

/** The round-trip link model (docs/methodology.md "Round-trip links"). */
export const LINK_PARAMS = {
  tol: { value: DEFAULT_TOLERANCE, unit: 'litoshi', meaning: 'link window: a peg-out of A matches peg-ins in [A, A + tol]' },
  horizon_blocks: { value: HORIZON_BLOCKS, unit: 'blocks', meaning: 'H: candidates, anonymity sets and the amount table count only pegs within this many blocks (60 days); older documents are final' },
  max_join: { value: 60, unit: 'peg-ins', meaning: 'windows holding more peg-ins than this in the horizon before the peg-out are never expanded into pairs' },
  max_candidates: { value: 20, unit: 'peg-ins', meaning: 'peg-outs with more candidates than this are not reported' },
  common_exact: { value: 2, unit: 'peg-ins', meaning: 'a peg-in amount used this many times or more within the horizon of it is common: never reported as a link' },
  prior: { value: 0.5, unit: '', meaning: 'π: prior probability that a peg-out is the whole-balance exit of one visible peg-in' },
  hop_prior_0: { value: 0.85, unit: '', meaning: 'q_0: share of round trips with no extra MWEB hop' },
  hop_prior_1: { value: 0.10, unit: '', meaning: 'q_1: share of round trips with one extra MWEB hop' },
  hop_prior_2: { value: 0.04, unit: '', meaning: 'q_2: share of round trips with two extra MWEB hops' },
  hop_prior_3: { value: 0.01, unit: '', meaning: 'q_3: share of round trips with three extra MWEB hops' },
  fee_other: { value: 0.05, unit: '', meaning: 'ε: share of round trips whose amount difference is not a standard MWEB fee' },
  rate_scale: { value: 10, unit: 'litoshi/vB', meaning: 'R: scale of the heavy-tailed fee-rate distribution' },
  gap_g0: { value: 6, unit: 'blocks', meaning: 'g0: offset of the block-gap density 1 / (gap + g0)' },
  min_reported: { value: 0.01, unit: '', meaning: 'links below this confidence are not reported' },
  max_reported_per_pegout: { value: 3, unit: 'links', meaning: 'a peg-out reports at most its best this many candidates' },
} as const satisfies Facts;

/** Labels, attribution and scores (docs/methodology.md "Labels and attribution", "Scores"). */
export const ATTRIBUTION_PARAMS = {
  pool_min_blocks: { value: 3, unit: 'blocks', meaning: 'a coinbase payout address that mined at least this many blocks is labelled pool' },
  pool_tagged_confidence: { value: 0.9, unit: '', meaning: 'confidence of a pool label named by its coinbase tag' },
  pool_untagged_confidence: { value: 0.6, unit: '', meaning: 'confidence of an "unnamed pool" label (the address never tagged)' },
  cluster_decay: { value: 0.8, unit: '', meaning: 'an institutional label propagated across a cluster keeps this share of its confidence' },
  full_score_set: { value: FULL_SCORE_SET, unit: 'peg-ins', meaning: 'anonymity set at which the privacy base score reaches 100 (same as the wallet side)' },
  reuse_penalty: { value: 25, unit: 'points', meaning: 'privacy score lost when a funding address received a peg-out' },
  entity_penalty: { value: 15, unit: 'points', meaning: 'privacy score lost when a funding address is attributed' },
  traceability_weight: { value: 10, unit: 'points', meaning: 'risk added per unit of traceability (best link confidence)' },
  reuse_risk: { value: 10, unit: 'points', meaning: 'risk added when the destination address also funded a peg-in' },
} as const satisfies Facts;

/** Recommendations (docs/methodology.md "Stats and recommendations"). */
export const RECOMMENDATION_PARAMS = {
  best_amounts: { value: 10, unit: 'amounts', meaning: 'best peg-in and peg-out amounts listed per side' },
  best_amount_min_count: { value: 2, unit: 'pegs', meaning: 'an amount is listed only if used at least this often' },
  wait_quantile: { value: 0.9, unit: '', meaning: 'the suggested wait is this quantile of the block gaps of high-confidence links' },
  min_wait_blocks: { value: 1_008, unit: 'blocks', meaning: 'the suggested wait is never shorter (about 1.75 days of 150-second blocks)' },
} as const satisfies Facts;

/**
 * What the published numbers mean: the stats' and the API's thresholds and
 * the follow depth. Not per-run parameters: documents and clients rely on them.
 */
export const DEFINITIONS = {
  linkable_confidence: { value: 0.5, unit: '', meaning: 'a link at or above this confidence makes its peg-out linkable and counts in entity flows' },
  high_confidence: { value: 0.9, unit: '', meaning: 'a link at or above this confidence is a high-confidence link; their gaps set the suggested wait' },
  high_risk_score: { value: 70, unit: 'points', meaning: 'a peg-out at or above this risk score counts in high_risk_pegouts' },
  follow_max_hops: { value: 10, unit: 'hops', meaning: 'multi-hop follow chains stop after this many hops (the follow endpoint\'s largest depth)' },
  follow_default_depth: { value: 3, unit: 'hops', meaning: 'the follow endpoint\'s default depth: a release\'s follow documents hold this many hops, and the longer chains are published beside them' },
  definitions_revision: {
    value: 2, unit: '',
    meaning: 'raised whenever a published number changes meaning without a value here changing (2: a peg-in\'s anonymity set counts only the blocks up to its own); a new one makes analyze recompute every peg and the next export render every document',
  },
} as const satisfies Facts;

const chain = valuesOf(CHAIN_FACTS);
const roundTripFee = chain.pegin_kernel_fee + chain.pegout_kernel_fee;
/** Smallest and largest round-trip fee with `hops` extra MWEB hops at the usual fee rates. */
const feeBand = (hops: number): [number, number] => [
  roundTripFee + hops * chain.hop_kernel_fee + chain.output_bytes_min,
  roundTripFee + hops * chain.hop_kernel_fee + chain.output_bytes_max * chain.usual_rate_max,
];
const [directMin, directMax] = feeBand(0);
const [oneHopMin, oneHopMax] = feeBand(1);
const [twoHopsMin] = feeBand(2);

/** Numbers computed from the chain facts (and one kept as it was), bound into the SQL like the others. */
export const DERIVED_FACTS = {
  round_trip_fee: { value: roundTripFee, unit: 'litoshi', meaning: 'pegin_kernel_fee + pegout_kernel_fee: a direct round trip\'s fee before the fee-rate part' },
  output_bytes_avg: { value: (chain.output_bytes_min + chain.output_bytes_max) / 2, unit: 'bytes', meaning: 'average peg-out output size: the fee-rate part is rate × this' },
  fee_band_direct_min: { value: directMin, unit: 'litoshi', meaning: 'link reasons: smallest difference of a direct round trip (round_trip_fee + output_bytes_min × 1 litoshi/vB)' },
  fee_band_direct_max: { value: directMax, unit: 'litoshi', meaning: 'link reasons: largest difference of a direct round trip (round_trip_fee + output_bytes_max × usual_rate_max)' },
  fee_band_hop_min: { value: oneHopMin, unit: 'litoshi', meaning: 'link reasons: smallest difference with one extra MWEB hop (fee_band_direct_min + hop_kernel_fee)' },
  fee_band_hop_max: { value: oneHopMax, unit: 'litoshi', meaning: 'link reasons: largest difference with one extra MWEB hop (fee_band_direct_max + hop_kernel_fee)' },
  fee_band_hops_min: { value: twoHopsMin, unit: 'litoshi', meaning: 'link reasons: smallest difference with two or three extra hops (fee_band_direct_min + 2 × hop_kernel_fee)' },
  fee_band_hops_max: {
    value: 21_300, unit: 'litoshi',
    meaning: 'link reasons: largest difference with two or three extra hops. Declared, not derived: the fee model gives 21,200 (fee_band_direct_max + 3 × hop_kernel_fee); kept as published until a methodology change',
  },
} as const satisfies Facts;

/** The parameters one `analyze` run may override (bench:quality tunes them); defaults from the registry. */
export const ANALYSIS_PARAM_FACTS = { ...LINK_PARAMS, ...ATTRIBUTION_PARAMS, ...RECOMMENDATION_PARAMS } as const;
export type AnalysisParams = Values<typeof ANALYSIS_PARAM_FACTS>;
export const DEFAULT_PARAMS: Readonly<AnalysisParams> = valuesOf(ANALYSIS_PARAM_FACTS);

export const LINKABLE_CONFIDENCE = DEFINITIONS.linkable_confidence.value;
export const HIGH_CONFIDENCE = DEFINITIONS.high_confidence.value;
export const HIGH_RISK_SCORE = DEFINITIONS.high_risk_score.value;
export const FOLLOW_MAX_HOPS = DEFINITIONS.follow_max_hops.value;
export const FOLLOW_DEFAULT_DEPTH = DEFINITIONS.follow_default_depth.value;

/** Every group of scalar facts, in the order docs/methodology.md lists them. */
export const MODEL_FACT_GROUPS: readonly { title: string; facts: Facts }[] = [
  { title: 'Chain facts', facts: CHAIN_FACTS },
  { title: 'Round-trip link model (`analyze` parameters)', facts: LINK_PARAMS },
  { title: 'Labels, attribution and scores (`analyze` parameters)', facts: ATTRIBUTION_PARAMS },
  { title: 'Recommendations (`analyze` parameters)', facts: RECOMMENDATION_PARAMS },
  { title: 'Definitions of published numbers', facts: DEFINITIONS },
  { title: 'Derived from the chain facts', facts: DERIVED_FACTS },
];

/** The values the analysis SQL is bound with: the run's parameters and every other fact. */
export function modelSqlValues(params: AnalysisParams = DEFAULT_PARAMS): Record<string, number> {
  return { ...valuesOf(CHAIN_FACTS), ...valuesOf(DEFINITIONS), ...valuesOf(DERIVED_FACTS), ...params };
}

/** Fills `{{name}}` placeholders with numeric literals only (no text ever reaches the SQL). */
export function bindSql(sql: string, values: Record<string, number>): string {
  return sql.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || !Number.isFinite(value)) throw new Error(`SQL needs a numeric value for {{${name}}}`);
    return String(value);
  });
}

export interface LabelCategoryFact {
  readonly name: string;
  /** AML risk (0..100) of an address attributed to this category, before its confidence. */
  readonly risk: number;
  /** Institutional labels spread across a wallet cluster; risky or person-level ones never do. */
  readonly propagates: boolean;
  readonly meaning: string;
}

/** The label categories (docs/methodology.md), their risks and whether they propagate across a cluster. An unlabelled address has risk 0. */
export const LABEL_CATEGORIES = [
  { name: 'exchange', risk: 15, propagates: true, meaning: 'custodial exchange' },
  { name: 'service', risk: 15, propagates: true, meaning: 'other custodial service (wallet provider, payment processor)' },
  { name: 'pool', risk: 5, propagates: true, meaning: 'mining pool (also derived from coinbase payouts)' },
  { name: 'mixer', risk: 85, propagates: false, meaning: 'mixing service' },
  { name: 'gambling', risk: 50, propagates: true, meaning: 'gambling site' },
  { name: 'merchant', risk: 10, propagates: true, meaning: 'merchant' },
  { name: 'sanctioned', risk: 100, propagates: false, meaning: 'on a sanctions list' },
  { name: 'other', risk: 30, propagates: false, meaning: 'anything else, a person included' },
] as const satisfies readonly LabelCategoryFact[];

export type LabelCategory = (typeof LABEL_CATEGORIES)[number]['name'];
export const LABEL_CATEGORY_NAMES: readonly LabelCategory[] = LABEL_CATEGORIES.map((c) => c.name);

/** Complete releases `export` keeps by default (`--keep`); an operational default, not part of the analysis. */
export const DEFAULT_KEEP_RELEASES = 3;

/**
 * DuckDB memory limits (`--memory-limit`, MB; DuckDB spills to disk beyond
 * them), operational defaults like the one above: analyze of x10 stays near
 * 1.25 GB RSS at 1 GB; a full x10 export (it spills over 1 GB of its work
 * tables) peaked at 2.6 GB RSS at 1.5 GB, 1.8–1.95 GB at 1 GB and 1.7 GB at
 * 896 MB, in the same time within the machine's noise (154–162 s). Since
 * 2026-11-27 the peg nodes' list aggregates (nodes.sql), which cannot
 * spill, no longer fit in 896 MB at x10; at 1 GB the process peaked at
 * 2.0 GB RSS, analysis included (177 s).
 * Below the minimum a single statement cannot run.
 */
export const DEFAULT_ANALYZE_MEMORY_MB = 1024;
export const DEFAULT_EXPORT_MEMORY_MB = 1024;
export const MIN_MEMORY_LIMIT_MB = 256;

/**
 * Precomputed chart series (api/series/<name>.json): small columnar
 * documents the explorer page plots, each computed by DuckDB from one .sql
 * file (src/export/series/) and wrapped in the common envelope under
 * `series`. Their size is bounded by construction: one point per day, at
 * most 160 amount buckets, twenty confidence bins. Pure: the router and the
 * page import it too.
 */
import { ref, responseSchema, objectOf, type JsonSchema } from './common-schema.js';
import type { Envelope } from './envelope.js';

export const SERIES_NAMES = ['daily', 'pegin_amounts', 'link_confidence'] as const;
export type SeriesName = (typeof SERIES_NAMES)[number];

export const seriesPath = (name: SeriesName): string => `api/series/${name}.json`;

export interface DailySeries {
  name: 'daily'; interval: 'day';
  /** Unix seconds of 00:00 UTC of each day. */
  day: number[]; height: number[]; supply: number[];
  pegin_count: number[]; pegin_amount: number[]; pegout_count: number[]; pegout_amount: number[];
}
export interface PeginAmountsSeries {
  name: 'pegin_amounts'; buckets_per_decade: 10;
  low: number[]; high: number[]; count: number[];
  popular: { amount: number; count: number }[];
}
export interface LinkConfidenceSeries {
  name: 'link_confidence'; bin_width: number;
  low: number[]; count: number[];
}
export interface SeriesBodies { daily: DailySeries; pegin_amounts: PeginAmountsSeries; link_confidence: LinkConfidenceSeries }
export type SeriesDocument<N extends SeriesName> = Envelope & { series: SeriesBodies[N] };

const column = (items: JsonSchema, maxItems?: number): JsonSchema => ({ type: 'array', items, ...(maxItems === undefined ? {} : { maxItems }) });
const count = ref('count');
const amount = ref('amount');
/** 1 litoshi to 84M coin is 16 decades. */
const MAX_BUCKETS = 160;
const BINS = 20;

const schemaOf = (name: SeriesName, title: string, fields: Record<string, JsonSchema>): JsonSchema =>
  responseSchema(`series-${name}`, title, { series: objectOf({ name: { const: name }, ...fields }) });

export const SCHEMAS: Record<SeriesName, JsonSchema> = {
  daily: schemaOf('daily', 'series: MWEB supply and peg activity per UTC day', {
    interval: { const: 'day' },
    day: column({ type: 'integer', minimum: 0, multipleOf: 86400 }), height: column(count), supply: column(amount),
    pegin_count: column(count), pegin_amount: column(amount), pegout_count: column(count), pegout_amount: column(amount),
  }),
  pegin_amounts: schemaOf('pegin_amounts', 'series: peg-in amounts in logarithmic buckets', {
    buckets_per_decade: { const: 10 },
    low: column(amount, MAX_BUCKETS), high: column(amount, MAX_BUCKETS), count: column(count, MAX_BUCKETS),
    popular: column(objectOf({ amount, count }), 10),
  }),
  link_confidence: schemaOf('link_confidence', 'series: reported links by confidence', {
    bin_width: { const: 0.05 },
    low: column(ref('confidence'), BINS), count: column(count, BINS),
  }),
};

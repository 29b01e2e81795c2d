/**
 * The release's public feeds (docs/notifications.md "Feeds"): the newest
 * links at confidence ≥ 0.9 and the newest peg-outs with risk ≥ 70, 100 of
 * each, as Atom (RFC 4287) and JSON Feed 1.1. Everything in them comes from
 * the chain and the analysis: an entry's id names its pegs, its date is its
 * block's, so an entry reads the same in every release, and a peg a reorg
 * removed is simply no longer there. Links are relative to the feed: the
 * explorer's block page of the peg and its API trace document.
 */
import { formatCoin } from '../domain/amount.js';
import { NETWORKS, type NetworkName } from '../domain/network.js';
import type { AnalysisStamp } from '../api/envelope.js';
import type { Queryable } from '../store/db.js';
import type { PutText } from './writer.js';

export const FEED_MIN_CONFIDENCE = 0.9;
export const FEED_MIN_RISK = 70;
export const FEED_ENTRIES = 100;
const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

/**
 * Newest links at or above $1, with their peg-out's block time; ties in a
 * stable order. The newest are picked before their blocks are joined (every
 * link's peg-out block is analysed): joining first read every block.
 */
const FEED_LINKS = `SELECT l.pegout_txid, l.pegout_vout, l.pegout_height, l.pegout_amount, l.pegin_txid, l.pegin_vout, l.pegin_height, l.pegin_amount, l.confidence, b.time
  FROM (FROM a_links WHERE confidence >= $1 ORDER BY pegout_height DESC, pegout_txid, pegout_vout, pegin_txid, pegin_vout LIMIT $2) l
  JOIN analysed_blocks b ON b.height = l.pegout_height
  ORDER BY l.pegout_height DESC, l.pegout_txid, l.pegout_vout, l.pegin_txid, l.pegin_vout`;
/** Newest peg-outs at or above risk $1. */
const FEED_RISK = `SELECT o.txid, o.vout, o.height, o.amount, o.address, o.block_time AS time, s.risk_score, s.reasons
  FROM a_pegout_scores s JOIN analysed_pegouts o USING (txid, vout)
  WHERE s.risk_score >= $1
  ORDER BY o.height DESC, o.txid, o.vout LIMIT $2`;

interface LinkRow {
  pegout_txid: string; pegout_vout: number; pegout_height: number; pegout_amount: bigint;
  pegin_txid: string; pegin_vout: number; pegin_height: number; pegin_amount: bigint;
  confidence: number; time: bigint;
}
interface RiskRow { txid: string; vout: number; height: number; amount: bigint; address: string | null; time: bigint; risk_score: number; reasons: string[] }

/** One entry, whichever format writes it. */
export interface FeedEntry {
  id: string;
  title: string;
  text: string;
  /** Unix seconds of the entry's block. */
  time: number;
  /** The explorer page of the peg's block, relative to the feed. */
  page: string;
  /** The API document of the peg, relative to the feed. */
  document: string;
}

export interface Feed {
  id: string;
  title: string;
  description: string;
  /** The file names of this feed's two formats, in feeds/. */
  atom: string;
  json: string;
  entries: FeedEntry[];
  links: FeedLinks;
  /**
   * The feed's date (unix seconds): its newest entry's, so a release with the
   * same entries writes the same bytes; without entries the first analysed
   * block's, which no later block changes.
   */
  updated: number;
}

/** The time of the first analysed block (null without blocks). */
const FIRST_BLOCK_TIME = 'SELECT min(time) AS time FROM analysed_blocks';

/**
 * Where a feed's links point: relative to the feed (feeds/<name>) by default;
 * with --site-url, absolute under it, since JSON Feed has no base-URL rule
 * and readers may not resolve relative ones (docs/notifications.md "Feeds").
 */
export interface FeedLinks {
  /** The release root as the feed's links name it: '../' or the site URL, ending in '/'. */
  root: string;
  /** The feeds directory: '' (relative) or the site URL's feeds/. */
  feeds: string;
}

const RELATIVE: FeedLinks = { root: '../', feeds: '' };

/** The links of feeds published at `siteUrl` (null: relative links). */
export const feedLinks = (siteUrl: string | null): FeedLinks => (siteUrl ? { root: siteUrl, feeds: `${siteUrl}feeds/` } : RELATIVE);

const page = (height: number, links: FeedLinks): string => `${links.root}index.html#/block/${height}`;
const documentOf = (txid: string, links: FeedLinks): string => `${links.root}api/trace?q=${txid}`;
const coins = (litoshi: bigint, network: NetworkName): string => `${formatCoin(Number(litoshi))} ${NETWORKS[network].unit}`;
const short = (txid: string): string => `${txid.slice(0, 12)}…`;

export function linkEntry(row: LinkRow, network: NetworkName, links: FeedLinks = RELATIVE): FeedEntry {
  const amount = coins(row.pegout_amount, network);
  return {
    id: `urn:pegscope:${network}:link:${row.pegin_txid}:${row.pegin_vout}:${row.pegout_txid}:${row.pegout_vout}`,
    title: `Link ${row.confidence.toFixed(2)}: peg-in ${short(row.pegin_txid)} → peg-out ${short(row.pegout_txid)} (${amount})`,
    text: `Peg-in ${row.pegin_txid}:${row.pegin_vout} of ${coins(row.pegin_amount, network)} at height ${row.pegin_height} is linked to peg-out `
      + `${row.pegout_txid}:${row.pegout_vout} of ${amount} at height ${row.pegout_height} with confidence ${row.confidence}. A heuristic inference, never proof.`,
    time: Number(row.time), page: page(row.pegout_height, links), document: documentOf(row.pegout_txid, links),
  };
}

export function riskEntry(row: RiskRow, network: NetworkName, links: FeedLinks = RELATIVE): FeedEntry {
  const amount = coins(row.amount, network);
  return {
    id: `urn:pegscope:${network}:pegout:${row.txid}:${row.vout}`,
    title: `Peg-out risk ${row.risk_score}: ${amount}${row.address ? ` to ${row.address}` : ''}`,
    text: `Peg-out ${row.txid}:${row.vout} of ${amount} at height ${row.height} scores risk ${row.risk_score} of 100: ${row.reasons.join('; ')}.`,
    time: Number(row.time), page: page(row.height, links), document: documentOf(row.txid, links),
  };
}

export async function feedsOf(db: Queryable, stamp: AnalysisStamp, links: FeedLinks = RELATIVE): Promise<Feed[]> {
  const { network } = stamp;
  const linkRows = await db.all<LinkRow>(FEED_LINKS, [FEED_MIN_CONFIDENCE, FEED_ENTRIES]);
  const risky = await db.all<RiskRow>(FEED_RISK, [FEED_MIN_RISK, FEED_ENTRIES]);
  const first = Number((await db.one<{ time: number | bigint | null }>(FIRST_BLOCK_TIME))?.time ?? stamp.updated_at);
  const updated = (entries: FeedEntry[]): number => Math.max(0, ...entries.map((e) => e.time)) || first;
  const feeds = [
    {
      id: `urn:pegscope:${network}:feed:links`, title: `pegscope ${network}: new links at confidence ≥ ${FEED_MIN_CONFIDENCE}`,
      description: `The newest ${FEED_ENTRIES} round-trip links between a peg-in and a later peg-out at confidence ${FEED_MIN_CONFIDENCE} or more (docs/methodology.md).`,
      atom: 'links.atom', json: 'links.json', entries: linkRows.map((row) => linkEntry(row, network, links)),
    },
    {
      id: `urn:pegscope:${network}:feed:risk`, title: `pegscope ${network}: new peg-outs with risk ≥ ${FEED_MIN_RISK}`,
      description: `The newest ${FEED_ENTRIES} peg-outs whose risk score is ${FEED_MIN_RISK} or more of 100 (docs/methodology.md).`,
      atom: 'risk.atom', json: 'risk.json', entries: risky.map((row) => riskEntry(row, network, links)),
    },
  ];
  return feeds.map((feed) => ({ ...feed, links, updated: updated(feed.entries) }));
}

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
/**
 * What XML 1.0's Char production excludes (control codes but tab and line ends, lone surrogates, U+FFFE,
 * U+FFFF), which no escape can carry, and the other control codes, which a reader shows as garbage.
 */
const NOT_XML_CHAR = /(?![\t\n\r])[\p{Cc}\p{Cs}\uFFFE\uFFFF]/gu;
/** Text for an XML element or attribute; a character XML cannot hold becomes U+FFFD, so one bad label never makes the whole feed unreadable. */
const escapeXml = (text: string): string => text.replace(NOT_XML_CHAR, '\uFFFD')
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function atomFeed(feed: Feed): string {
  const entries = feed.entries.map((e) => `  <entry>
    <id>${escapeXml(e.id)}</id>
    <title>${escapeXml(e.title)}</title>
    <updated>${iso(e.time)}</updated>
    <link rel="alternate" type="text/html" href="${escapeXml(e.page)}"/>
    <link rel="related" type="application/json" href="${escapeXml(e.document)}"/>
    <summary>${escapeXml(e.text)}</summary>
  </entry>
`).join('');
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${escapeXml(feed.id)}</id>
  <title>${escapeXml(feed.title)}</title>
  <subtitle>${escapeXml(feed.description)}</subtitle>
  <updated>${iso(feed.updated)}</updated>
  <author><name>pegscope</name></author>
  <link rel="self" type="application/atom+xml" href="${escapeXml(feed.links.feeds + feed.atom)}"/>
  <link rel="alternate" type="application/feed+json" href="${escapeXml(feed.links.feeds + feed.json)}"/>
  <link rel="alternate" type="text/html" href="${escapeXml(homePage(feed.links))}"/>
${entries}</feed>
`;
}

/** The explorer page: ../index.html beside the feeds, or the site URL itself. */
const homePage = (links: FeedLinks): string => (links === RELATIVE ? '../index.html' : links.root);

export function jsonFeed(feed: Feed): string {
  return `${JSON.stringify({
    version: JSON_FEED_VERSION,
    title: feed.title,
    description: feed.description,
    home_page_url: homePage(feed.links),
    feed_url: feed.links.feeds + feed.json,
    authors: [{ name: 'pegscope' }],
    items: feed.entries.map((e) => ({ id: e.id, url: e.page, external_url: e.document, title: e.title, content_text: e.text, date_published: iso(e.time) })),
  }, null, 2)}\n`;
}

/** Writes both formats of every feed with `put` (the release writer's). */
export async function writeFeeds(db: Queryable, stamp: AnalysisStamp, put: PutText, siteUrl: string | null = null): Promise<void> {
  for (const feed of await feedsOf(db, stamp, feedLinks(siteUrl))) {
    put(`feeds/${feed.atom}`, atomFeed(feed));
    put(`feeds/${feed.json}`, jsonFeed(feed));
  }
}

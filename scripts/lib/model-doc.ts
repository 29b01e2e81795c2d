/**
 * The constants table of docs/methodology.md, rendered from the model registry
 * (src/domain/model.ts). `npm run docs:model` rewrites it; test/model.test.ts
 * fails when the doc and the registry differ.
 */
import { LABEL_CATEGORIES, MODEL_FACT_GROUPS } from '../../src/domain/model.js';

export const BEGIN = '<!-- model-facts:begin — generated from src/domain/model.ts by `npm run docs:model`; edit the registry, not this table -->';
export const END = '<!-- model-facts:end -->';

/** A number as the docs print it: thousands separated, every decimal kept. */
export const docNumber = (value: number): string => value.toLocaleString('en-US', { maximumFractionDigits: 20 });
const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The markdown between the markers: one table per group of facts, then the label categories. */
export function renderModelFacts(): string {
  const groups = MODEL_FACT_GROUPS.map(({ title, facts }) => [
    `**${title}**`,
    '',
    '| name | value | unit | meaning |',
    '|---|---|---|---|',
    ...Object.entries(facts).map(([name, f]) => `| \`${name}\` | ${docNumber(f.value)} | ${cell(f.unit)} | ${cell(f.meaning)} |`),
  ].join('\n'));
  const categories = [
    '**Label categories** (an unlabelled address has risk 0)',
    '',
    '| category | risk | propagates across a cluster | meaning |',
    '|---|---|---|---|',
    ...LABEL_CATEGORIES.map((c) => `| \`${c.name}\` | ${c.risk} | ${c.propagates ? 'yes' : 'no'} | ${cell(c.meaning)} |`),
  ].join('\n');
  return [...groups, categories].join('\n\n');
}

/** The text between the markers of `doc` (throws when they are missing). */
export function modelFactsSection(doc: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/methodology.md lacks the markers ${BEGIN} … ${END}`);
  return doc.slice(begin + BEGIN.length, end).trim();
}

/** `doc` with the section between the markers replaced by the rendered table. */
export function withModelFacts(doc: string): string {
  modelFactsSection(doc);
  return `${doc.slice(0, doc.indexOf(BEGIN) + BEGIN.length)}\n${renderModelFacts()}\n${doc.slice(doc.indexOf(END))}`;
}

/**
 * The "What is in a release" table of docs/static-hosting.md, rendered from
 * the layout the router serves by (src/api/release-files.ts). `npm run
 * docs:release` rewrites it; test/serve-files.test.ts fails when they differ.
 */
import { RELEASE_FILE_RULES } from '../../src/api/release-files.js';

export const BEGIN = '<!-- release-files:begin — generated from src/api/release-files.ts by `npm run docs:release`; edit the list, not this table -->';
export const END = '<!-- release-files:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function renderReleaseFiles(): string {
  return [
    '| path | what | served by name |',
    '|---|---|---|',
    ...RELEASE_FILE_RULES.map((rule) => `| ${cell(rule.paths)} | ${cell(rule.what)} | ${rule.served ? 'yes' : 'no: the router and nginx answer 404'} |`),
  ].join('\n');
}

/** `doc` with the table between the markers rendered anew (throws when they are missing). */
export function withReleaseFiles(doc: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/static-hosting.md lacks the markers ${BEGIN} … ${END}`);
  return `${doc.slice(0, begin + BEGIN.length)}\n${renderReleaseFiles()}\n${doc.slice(end)}`;
}

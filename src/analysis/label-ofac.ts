/**
 * The OFAC SDN list in its classic XML form, `sdn.xml` (docs/labels.md
 * "OFAC SDN"): every `sdnEntry`'s `idList/id` of type `Digital Currency
 * Address - LTC` is a `sanctioned` label of the entry's name; ids of other
 * currencies are counted, not imported. The file is streamed through an XML
 * parser (saxes): the real list is over 100 MB, and XML read with regular
 * expressions breaks on CDATA, comments and entities.
 */
import { createReadStream } from 'node:fs';
import { SaxesParser } from 'saxes';
import type { NetworkParams } from '../domain/network.js';
import { checkLabel, emptyFileLabels, LabelFileError, type FileLabels, type SourceId } from './label-check.js';

/** The id type of a Litecoin address; other currencies' ids differ only in the ticker. */
const LTC_ID_TYPE = 'Digital Currency Address - LTC';
const DIGITAL_CURRENCY_ID = /^Digital Currency Address - /;
/** The source's identity: one SDN list, whatever its date, so a newer list replaces the older one. */
export const OFAC_SOURCE: SourceId = { kind: 'ofac', key: 'SDN' };
/** A U.S. Government work: not subject to copyright in the U.S. (17 U.S.C. § 105). */
export const OFAC_TERMS = 'public domain (U.S. Government work, OFAC Specially Designated Nationals list)';
/** Being on the list is certain; what the address did is the list's claim, which `sanctioned` says. */
const OFAC_CONFIDENCE = 1;
/**
 * The namespaces the Treasury has published SDN.XML in: the Sanctions List
 * Service's, and the classic list's schema. A root in any other namespace is
 * another document that happens to use the same element names.
 */
export const SDN_NAMESPACES: readonly string[] = ['https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML', 'http://tempuri.org/sdnList.xsd'];
/** The SDN list's date format, MM/DD/YYYY. */
const PUBLISH_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/** One `sdnEntry` as far as labels need it. */
interface SdnEntry { lastName: string; firstName: string; programs: string[]; ids: { line: number; type: string; number: string }[] }

/** The elements whose text is read, by their parent: the rest of an entry (addresses, aliases, dates of birth) is not needed. */
const TEXT_ELEMENTS = new Set(['sdnEntry/lastName', 'sdnEntry/firstName', 'programList/program', 'id/idType', 'id/idNumber', 'publshInformation/Publish_Date']);

/** The labels of an SDN list file. */
export async function ofacLabels(file: string, network: NetworkParams): Promise<FileLabels> {
  const { entries, publishDate } = await readSdn(file);
  const result = emptyFileLabels();
  const source = `OFAC SDN ${publishDate}`;
  result.sources.push(OFAC_SOURCE);
  for (const entry of entries) {
    const entity = entry.firstName ? `${entry.lastName}, ${entry.firstName}` : entry.lastName;
    for (const id of entry.ids) {
      if (!DIGITAL_CURRENCY_ID.test(id.type)) continue;
      if (id.type !== LTC_ID_TYPE) {
        result.skipped.otherCurrency++;
        continue;
      }
      const checked = checkLabel({ address: id.number, entity, category: 'sanctioned', confidence: OFAC_CONFIDENCE, source }, network, source);
      if (checked.kind === 'rejected') result.rejected.push({ file, line: id.line, reason: checked.reason, cause: checked.cause });
      else if (checked.kind === 'placeholder') result.ignored++;
      else {
        result.labels.push({
          ...checked.label, ...OFAC_SOURCE, terms: OFAC_TERMS, details: entry.programs.length > 0 ? `programs: ${entry.programs.join(', ')}` : null,
        });
      }
    }
  }
  return result;
}

/** The entries holding ids and the list's date (ISO), streamed; a file that is not an SDN list throws a LabelFileError. */
async function readSdn(file: string): Promise<{ entries: SdnEntry[]; publishDate: string }> {
  const parser = new SaxesParser({ xmlns: true });
  const entries: SdnEntry[] = [];
  const path: string[] = [];
  let entry: SdnEntry | null = null;
  let id: SdnEntry['ids'][number] | null = null;
  let text = '';
  let publishDate = '';
  parser.on('opentag', (tag) => {
    const name = tag.local;
    if (path.length === 0) checkRoot(tag.name, name, tag.uri, parser.line);
    path.push(name);
    text = '';
    if (name === 'sdnEntry') entry = { lastName: '', firstName: '', programs: [], ids: [] };
    else if (name === 'id' && entry) id = { line: parser.line, type: '', number: '' };
  });
  parser.on('text', (chunk) => { text += chunk; });
  parser.on('cdata', (chunk) => { text += chunk; });
  parser.on('closetag', () => {
    const name = path.pop()!;
    const where = `${path.at(-1) ?? ''}/${name}`;
    const value = TEXT_ELEMENTS.has(where) ? text.trim() : '';
    text = '';
    if (where === 'publshInformation/Publish_Date') publishDate = value;
    else if (entry && where === 'sdnEntry/lastName') entry.lastName = value;
    else if (entry && where === 'sdnEntry/firstName') entry.firstName = value;
    else if (entry && where === 'programList/program') entry.programs.push(value);
    else if (id && where === 'id/idType') id.type = value;
    else if (id && where === 'id/idNumber') id.number = value;
    else if (entry && id && name === 'id') { entry.ids.push(id); id = null; }
    else if (entry && name === 'sdnEntry') {
      if (entry.ids.length > 0) entries.push(entry);
      entry = null;
    }
  });
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8' })) parser.write(chunk as string);
    parser.close();
  } catch (err) {
    if (err instanceof LabelFileError) throw err;
    if (err instanceof Error && 'code' in err) throw new LabelFileError(0, `cannot read ${file}: ${err.message}`);
    throw new LabelFileError(parser.line, `not valid XML (${err instanceof Error ? err.message : String(err)}); nothing from this file was imported`);
  }
  return { entries, publishDate: isoDate(publishDate) };
}

/** An SDN list's root: <sdnList> (a copy may prefix it) in one of SDN_NAMESPACES. */
function checkRoot(qualified: string, local: string, uri: string, line: number): void {
  if (local !== 'sdnList') throw new LabelFileError(line, `the root element is <${shownName(qualified)}>, not <sdnList>: not an OFAC SDN list (sdn.xml)`);
  if (!SDN_NAMESPACES.includes(uri)) {
    throw new LabelFileError(line, `the root element <sdnList> is in ${uri ? `the namespace "${shownName(uri)}"` : 'no namespace'}, not in one the Treasury publishes SDN.XML in `
      + `(${SDN_NAMESPACES.join(' or ')}): not an OFAC SDN list`);
  }
}

/** A name or namespace from the file, quoted in a message: cut short, printable. */
const shownName = (text: string): string => text.slice(0, 100).replace(/[^\x20-\x7e]/g, '?');

/** MM/DD/YYYY as YYYY-MM-DD; the source's name needs the date, so a list without a real one is refused. */
function isoDate(date: string): string {
  const match = PUBLISH_DATE.exec(date);
  const [month, day, year] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  // Date.UTC rolls an impossible date over (13/45 → the next year): a date that reads back the same exists.
  const real = new Date(Date.UTC(year, month - 1, day));
  if (!match || real.getUTCFullYear() !== year || real.getUTCMonth() !== month - 1 || real.getUTCDate() !== day) {
    const what = !date ? 'missing' : match ? `"${date}", not a date that exists (month 1–12, a day of that month)` : `"${shownName(date.slice(0, 40))}", not MM/DD/YYYY`;
    throw new LabelFileError(0, `publshInformation/Publish_Date is ${what}: the labels' source is named by that date (OFAC SDN YYYY-MM-DD)`);
  }
  return `${match[3]}-${match[1]!.padStart(2, '0')}-${match[2]!.padStart(2, '0')}`;
}

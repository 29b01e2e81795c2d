/**
 * Names and rules of the files every release has, for the exporter and for
 * code that reads releases without it (verify, the router).
 */
export const MANIFEST_FILE = 'manifest.json';
/** What changed since the previous release (added, changed, removed with sha256): what a mirror uploads. */
export const CHANGES_FILE = 'changes.json';
/** Files at least this large get a .gz sibling (and the router compresses documents from this size); at least BR_MIN a .br one when it beats gzip clearly. */
export const GZ_MIN = 4096;
export const BR_MIN = 65536;

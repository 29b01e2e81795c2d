/**
 * Builds the explorer page from src/web/ into dist/explorer/ (run by `npm run
 * build`, and once per test run by the vitest global setup):
 *   index.html                 the shell, with the CSP in a <meta> and the asset names filled in
 *   assets/app-<hash>.js       the page (esbuild: bundled, minified, ES modules)
 *   assets/chunk-<hash>.js     code loaded on demand (the charts page and uPlot)
 *   assets/style-<hash>.css    the styles (uPlot's included)
 *   assets/<doc>-<hash>.html   docs/methodology.md and docs/api.md as HTML (marked)
 * The export copies that directory into every release. The build is
 * deterministic: the same sources give the same bytes and names.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { marked } from 'marked';
import { ASSETS_DIR, CSP_META, EXPLORER_INDEX } from '../src/api/explorer.js';
import { ATTRIBUTION_LINK, DISCLAIMER } from '../src/api/index.js';

const ROOT = join(import.meta.dirname, '..');
export const EXPLORER_OUT = join(ROOT, 'dist', 'explorer');
const DOCS = { methodology: 'docs/methodology.md', api: 'docs/api.md' } as const;

export interface BuiltFile {
  path: string;
  bytes: number;
  gzip: number;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const hash8 = (data: string): string => createHash('sha256').update(data).digest('hex').slice(0, 8);

/** Builds into a temporary directory and swaps it in, so a reader never sees half a build. */
export async function buildExplorer(outDir = EXPLORER_OUT): Promise<BuiltFile[]> {
  const tmp = `${outDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, ASSETS_DIR), { recursive: true });
  try {
    const docs: Record<string, string> = {};
    for (const [name, file] of Object.entries(DOCS)) {
      const html = await marked.parse(readFileSync(join(ROOT, file), 'utf8'));
      const asset = `${ASSETS_DIR}/${name}-${hash8(html)}.html`;
      writeFileSync(join(tmp, asset), html);
      docs[name] = asset;
    }
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [{ in: 'src/web/main.ts', out: 'app' }, { in: 'src/web/style.css', out: 'style' }],
      outdir: join(tmp, ASSETS_DIR),
      entryNames: '[name]-[hash]', chunkNames: 'chunk-[hash]',
      bundle: true, splitting: true, format: 'esm', platform: 'browser',
      target: ['es2022', 'chrome100', 'firefox100', 'safari16'],
      minify: true, charset: 'utf8', legalComments: 'eof', metafile: true, logLevel: 'warning',
      define: { __EXPLORER_DOCS__: JSON.stringify(docs) },
      // The CSV code of the API (src/api/csv.ts) in csv-stringify's browser build, which brings its own Buffer.
      alias: { 'csv-stringify/sync': 'csv-stringify/browser/esm/sync' },
    });
    const outputs = Object.keys(result.metafile.outputs).map((path) => relative(join(tmp, ASSETS_DIR), join(ROOT, path)));
    const named = (prefix: string, ext: string): string => {
      const name = outputs.find((o) => o.startsWith(`${prefix}-`) && o.endsWith(ext));
      if (!name) throw new Error(`esbuild wrote no ${prefix}-*${ext}`);
      return `${ASSETS_DIR}/${name}`;
    };
    const html = readFileSync(join(ROOT, 'src', 'web', 'index.html'), 'utf8')
      .replace('%CSP%', CSP_META).replace('%STYLE%', named('style', '.css')).replace('%APP%', named('app', '.js'))
      .replace('%DISCLAIMER%', escapeHtml(DISCLAIMER)).replace('%ATTRIBUTION_LINK%', ATTRIBUTION_LINK)
      .replaceAll('%ATTRIBUTION_TEXT%', 'Data from pegscope').replace('%DATA_LICENSE%', 'CC BY 4.0').replace('%CODE_LICENSE%', 'AGPL-3.0');
    if (/%[A-Z_]+%/.test(html)) throw new Error(`src/web/index.html has an unknown placeholder: ${/%[A-Z_]+%/.exec(html)![0]}`);
    writeFileSync(join(tmp, EXPLORER_INDEX), html);
    rmSync(outDir, { recursive: true, force: true });
    renameSync(tmp, outDir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return builtFiles(outDir);
}

/** Every file of a built page with its size and gzip size. */
export function builtFiles(dir: string): BuiltFile[] {
  const files = [EXPLORER_INDEX, ...readdirSync(join(dir, ASSETS_DIR)).sort().map((name) => `${ASSETS_DIR}/${name}`)];
  return files.filter((path) => statSync(join(dir, path)).isFile()).map((path) => {
    const bytes = readFileSync(join(dir, path));
    return { path, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const files = await buildExplorer();
  for (const f of files) console.log(`  ${f.path.padEnd(40)} ${String(f.bytes).padStart(8)} B  ${String(f.gzip).padStart(7)} B gzipped`);
  console.log(`explorer built in ${relative(process.cwd(), EXPLORER_OUT) || '.'}: ${files.length} files`);
}

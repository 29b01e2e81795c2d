import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from './config.js';
import { runJob } from './job.js';
import { startServer } from './serve/server.js';

export interface DemoOptions {
  host: string;
  port: number;
  log: (line: string) => void;
}

/** `npm start`: the job on the built-in demo chain, then the router on it, with URLs to try. */
export async function runDemo(opts: DemoOptions): Promise<void> {
  const config = resolveConfig({ network: 'sim' });
  await runJob(config, { source: 'sim', preset: 'demo', seed: 1, log: opts.log });
  const server = await startServer({
    sites: [{ network: 'sim', outDir: config.outDir }],
    host: opts.host, port: opts.port, rateLimit: 0, log: opts.log,
  });
  const api = `${server.url}/api`;
  const address = sampleAddress(config.outDir);
  process.stdout.write([
    '',
    `pegscope is serving the simulated demo chain at ${api}`,
    `The explorer page: ${server.url}/`,
    'Try:',
    `  curl '${api}/stats'`,
    `  curl '${api}/privacy?amount=1.5'`,
    `  curl '${api}/links?min_confidence=0.9&limit=5'`,
    ...(address ? [`  curl '${api}/trace?q=${address}'`, `  curl '${api}/follow?q=${address}&depth=5'`] : []),
    'Ctrl-C stops it.',
    '',
  ].join('\n'));
  const stop = () => { void server.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The peg-out address of the most confident link: a trace worth looking at. */
function sampleAddress(outDir: string): string | undefined {
  try {
    const links = JSON.parse(readFileSync(join(outDir, 'current', 'api', 'links.json'), 'utf8')) as { links?: { pegout_address?: string }[] };
    return links.links?.find((link) => link.pegout_address)?.pegout_address;
  } catch {
    return undefined;
  }
}

import { readFileSync } from 'node:fs';
import { parseRpcUrl, resolveConfig, UsageError, type ResolvedConfig } from './config.js';

/** One network of a multi-network deployment (docs/deploy.md). */
export interface SiteConfig {
  config: ResolvedConfig;
  hostnames: string[];
}

interface SiteEntry {
  network?: unknown;
  db?: unknown;
  out?: unknown;
  rpcUrl?: unknown;
  rpcUser?: unknown;
  rpcPassword?: unknown;
  rpcCookie?: unknown;
  hostnames?: unknown;
}

const optionalString = (entry: SiteEntry, key: keyof SiteEntry, where: string): string | undefined => {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`${where}: "${key}" must be a non-empty string`);
  return value;
};

/**
 * Reads `{"networks": [{"network": "mainnet", "db": …, "out": …, "rpcUrl": …,
 * "rpcCookie": …, "hostnames": ["…"]}, …]}`. Each network has its own database and tree.
 */
export function loadConfigFile(path: string): SiteConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  const networks = (parsed as { networks?: unknown }).networks;
  if (!Array.isArray(networks) || networks.length === 0) {
    throw new UsageError(`config file ${path} needs a non-empty "networks" array (see docs/deploy.md)`);
  }
  const sites = networks.map((entry: SiteEntry, i): SiteConfig => {
    const where = `${path}: networks[${i}]`;
    const network = optionalString(entry, 'network', where);
    if (!network) throw new UsageError(`${where}: "network" is required (mainnet, testnet, regtest or sim)`);
    const rpcUrl = optionalString(entry, 'rpcUrl', where);
    if (rpcUrl !== undefined) parseRpcUrl(rpcUrl, `${where}: "rpcUrl"`);
    const hostnames = entry.hostnames ?? [];
    if (!Array.isArray(hostnames) || hostnames.some((h) => typeof h !== 'string')) {
      throw new UsageError(`${where}: "hostnames" must be an array of host names`);
    }
    return {
      config: resolveConfig({
        network,
        db: optionalString(entry, 'db', where),
        out: optionalString(entry, 'out', where),
        rpcUrl,
        rpcUser: optionalString(entry, 'rpcUser', where),
        rpcPassword: optionalString(entry, 'rpcPassword', where),
        rpcCookie: optionalString(entry, 'rpcCookie', where),
      }),
      hostnames: hostnames as string[],
    };
  });
  const seen = new Set<string>();
  for (const site of sites) {
    if (seen.has(site.config.network.name)) throw new UsageError(`${path}: network "${site.config.network.name}" appears twice`);
    seen.add(site.config.network.name);
  }
  return sites;
}

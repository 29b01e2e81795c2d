import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { remoteText } from './chain/errors.js';
import { envInteger, parseDuration, parseWholeNumber, resolveConfig, UsageError, type CommonOptions, type ResolvedConfig } from './config.js';
import type { JobOptions } from './job.js';
import type { Problem } from './export/verify.js';
import type { SourceOptions } from './sources.js';
import { consoleProgress } from './progress.js';
import type { Db } from './store/db.js';
import type { SecretKey } from './trust/minisign.js';
import { packageVersion } from './version.js';
import type { ServeOptions } from './serve/server.js';
import type { MirrorSummary } from './mirror/mirror.js';
import { DEFAULT_CACHE_LIMITS } from './serve/limits.js';
import { DEFAULT_CACHE_SECONDS } from './api/caching.js';
import { DEFAULT_STALE_AFTER_SECONDS } from './api/health.js';
import { loadConfigFile } from './config-file.js';
import { DEFAULT_ANALYZE_MEMORY_MB, DEFAULT_EXPORT_MEMORY_MB, DEFAULT_KEEP_RELEASES, HORIZON_BLOCKS, MIN_MEMORY_LIMIT_MB } from './domain/model.js';
import { LABEL_FORMATS, type LabelFormat } from './analysis/label-check.js';
import { DEFAULT_HOST_BUDGET, LAYOUTS, parseHostBudget, type HostBudget, type Layout } from './export/ranges.js';

const MAX_LOG_LINE = 4000;
/** What remoteText leaves as it is (printable ASCII words, single spaces); most lines, a request's among them, skip its work. */
const PLAIN_LINE = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;
/** Log lines and error messages carry text from nodes, servers, clients and files: one escaped line each. */
const terminal = (text: string): string => (text.length <= MAX_LOG_LINE && PLAIN_LINE.test(text) ? text : remoteText(text, MAX_LOG_LINE));
const logLine = (line: string): string => `${new Date().toISOString()} ${terminal(line)}\n`;
const log = (line: string): void => { process.stderr.write(logLine(line)); };

const MAX_HEIGHT = 2 ** 31 - 1;
const MAX_SEED = 2 ** 32 - 1;
/** Blocks a growing simulated chain gains per run, at most (job --grow). */
const MAX_GROW_BLOCKS = 1_000;
const MAX_PORT = 65_535;
const DEFAULT_PORT = 8080;
const MAX_KEEP = 1000;
const MAX_RATE_LIMIT = 1_000_000;
const MAX_WORKERS = 256;
const MAX_ANSWER_CACHE_MIB = 65_536;
const MIB = 1024 * 1024;
const MAX_MEMORY_LIMIT_MB = 1_048_576;
const MAX_MIRROR_CONCURRENCY = 64;
/** --every waits with setTimeout, which cannot wait longer than this. */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

/** --network, and --db and --out where the command reads or writes them. */
function withCommon(cmd: Command, uses: { db: boolean; out: boolean } = { db: true, out: true }): Command {
  cmd.addOption(new Option('--network <name>', 'mainnet, testnet, regtest or sim (default: sim without a node, mainnet with one)'));
  if (uses.db) cmd.option('--db <file>', 'DuckDB file (default data/<network>.duckdb)');
  if (uses.out) cmd.option('--out <dir>', 'published tree (default out/<network>)');
  return cmd;
}
const NO_DB = { db: false, out: true };
const NO_OUT = { db: true, out: false };

function withNode(cmd: Command): Command {
  return cmd
    .option('--rpc-url <url>', 'Litecoin Core JSON-RPC URL (env LTC_RPC_URL)')
    .option('--rpc-user <user>', 'RPC user (env LTC_RPC_USER)')
    .option('--rpc-password <password>', 'RPC password (env LTC_RPC_PASSWORD)')
    .option('--rpc-cookie <file>', 'RPC cookie file, <datadir>/.cookie (env PEGSCOPE_RPC_COOKIE)');
}

function withSource(cmd: Command): Command {
  return cmd
    .addOption(new Option('--source <kind>', 'rpc or sim (default: rpc when a node is configured)').choices(['rpc', 'sim']))
    .addOption(new Option('--preset <name>', 'sim preset').choices(['tiny', 'demo', 'mainnet', 'x10']).default('demo'))
    .option('--seed <n>', 'sim seed', parseInteger('--seed', 0, MAX_SEED), 1)
    .option('--to <height>', 'stop scanning at this height', parseInteger('--to', 0, MAX_HEIGHT))
    .option('--allow-syncing', 'scan a node still in initial block download (blocks < headers) up to the blocks it has (docs/node.md)');
}

/** What `analyze` and `job` take from the analysis model. */
function withAnalysis(cmd: Command): Command {
  return cmd.option('--horizon <blocks>', `blocks within which pegs can be linked and hide each other (the horizon; default ${HORIZON_BLOCKS}, 60 days; docs/methodology.md)`,
    parseInteger('--horizon', 1, MAX_HEIGHT), HORIZON_BLOCKS);
}

/** DuckDB's memory limit for `analyze`, `export` and `job`: small machines need one, large ones go faster without. */
function withMemory(cmd: Command): Command {
  return cmd.option('--memory-limit <MB>', `DuckDB memory while analysing and exporting, in MB; it spills to disk beyond it (default ${DEFAULT_ANALYZE_MEMORY_MB} for analyze, ${DEFAULT_EXPORT_MEMORY_MB} for export: x10 within about 2 GB RSS; raise it on a large machine for speed)`,
    parseInteger('--memory-limit', MIN_MEMORY_LIMIT_MB, MAX_MEMORY_LIMIT_MB));
}

/** What `export` and `job` say about the release they publish. */
function withRelease(cmd: Command): Command {
  return cmd
    .option('--keep <n>', 'complete releases to keep; once there are that many, the oldest is recycled into the next export', parseInteger('--keep', 1, MAX_KEEP), DEFAULT_KEEP_RELEASES)
    .addOption(new Option('--layout <layout>', 'ranges: trace/address/follow/block documents packed into range files (any static host; lookups through the range API or @pegscope/client); files: one file per query (an nginx mirror answering ?q= without Node; needs --host-budget none)').choices(LAYOUTS).default('ranges'))
    // No default value here: commander would print it again, as JSON; releaseOptions applies it.
    .option('--host-budget <limits>', 'fail the export when the release breaks these limits: files=N,file=SIZE,total=SIZE, or none (default files=20000,file=25MiB,total=1GB: Cloudflare Pages, GitHub Pages)', parseBudget)
    .option('--site-url <url>', 'the public URL the release is served at (https://host/path/): the feeds\' links are absolute under it (docs/notifications.md)', valueParser(parseSiteUrl))
    .option('--sign-key <file>', 'sign each release with this minisign secret key (env PEGSCOPE_SIGN_KEY; `pegscope keygen` makes one; docs/verifying.md)')
    .option('--explorer-public-key <key>', 'the explorer page verifies the amount table and range files against this minisign public key (RW… or its file); repeat it or separate keys with commas (key rotation); default: the public half of --sign-key', collect, []);
}

/**
 * The signing key of --sign-key, else PEGSCOPE_SIGN_KEY, read once before any
 * work (a bad key stops the command at once); undefined: releases unsigned.
 */
async function signKeyOf(flags: { signKey?: string }): Promise<SecretKey | undefined> {
  const file = flags.signKey ?? (process.env.PEGSCOPE_SIGN_KEY || undefined);
  if (file === undefined) return undefined;
  const { KeyFileError, readSecretKeyFile, sharedKeyFileMode } = await import('./trust/keys.js');
  let key: SecretKey;
  try {
    key = readSecretKeyFile(file, flags.signKey !== undefined ? '--sign-key' : 'PEGSCOPE_SIGN_KEY');
  } catch (err) {
    throw err instanceof KeyFileError ? new UsageError(err.message) : err;
  }
  const mode = sharedKeyFileMode(file);
  if (mode !== null) {
    log(`warning: the signing key ${file} (mode ${mode.toString(8).padStart(4, '0')}) can be read by other users, who could sign releases as you; run \`chmod 600 ${file}\` (docs/verifying.md)`);
  }
  return key;
}

interface ReleaseFlags { keep: number; layout: Layout; hostBudget?: HostBudget; siteUrl?: string; signKey?: string; explorerPublicKey: string[] }
interface MemoryFlags { memoryLimit?: number }

/** --site-url: an http(s) URL without credentials, query or fragment, ending in '/'. */
function parseSiteUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--site-url is not a URL: "${text}"; give the site's public address, e.g. https://pegscope.example/`);
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw new Error(`--site-url must be an http:// or https:// URL without user, query or fragment, e.g. https://pegscope.example/; got "${text}"`);
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

async function releaseOptions(flags: ReleaseFlags): Promise<{
  keep: number; layout: Layout; hostBudget: HostBudget; siteUrl?: string; signKey?: SecretKey; explorerPublicKeys?: string[];
}> {
  return {
    keep: flags.keep, layout: flags.layout, hostBudget: flags.hostBudget ?? DEFAULT_HOST_BUDGET, siteUrl: flags.siteUrl,
    signKey: await signKeyOf(flags), explorerPublicKeys: await explorerKeysOf(flags),
  };
}

/** The keys of --explorer-public-key, checked before any work; undefined: the default (the public half of --sign-key). */
async function explorerKeysOf(flags: { explorerPublicKey: string[] }): Promise<string[] | undefined> {
  if (flags.explorerPublicKey.length === 0) return undefined;
  const { KeyFileError, readPublicKeys } = await import('./trust/keys.js');
  try {
    return readPublicKeys(flags.explorerPublicKey, '--explorer-public-key').map((key) => key.line);
  } catch (err) {
    throw err instanceof KeyFileError ? new UsageError(err.message) : err;
  }
}

function parseBudget(text: string): HostBudget {
  try {
    return parseHostBudget(text);
  } catch (err) {
    throw new InvalidArgumentError(`--host-budget: ${(err as Error).message}; e.g. --host-budget files=100000,total=none or --host-budget none`);
  }
}

/** A repeatable option's values, in order. */
const collect = (value: string, previous: string[]): string[] => [...previous, value];
/**
 * An option's value parser whose refusal is a usage error in commander's
 * two-line form (shortUsageErrors), naming the command: `check` throws the
 * message (config.ts parseWholeNumber, parseDuration).
 */
function valueParser<T>(check: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return check(text);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

/** A duration flag (30s, 5m, 1h), checked when parsed and kept as given. */
const durationFlag = (flag: string) => valueParser((text: string): string => { parseDuration(text, flag); return text; });

function parseInteger(flag: string, min: number, max: number) {
  return valueParser((value: string): number => parseWholeNumber(value, flag, min, max));
}

/** --port, else PEGSCOPE_PORT, else 8080. */
const portOf = (flags: { port?: number }): number => flags.port ?? envInteger('PEGSCOPE_PORT', 0, MAX_PORT, DEFAULT_PORT);

type SourceFlags = CommonOptions & SourceOptions & { to?: number; allowSyncing?: boolean };

function sourceOptions(flags: SourceFlags): SourceOptions {
  return { source: flags.source, preset: flags.preset, seed: flags.seed };
}

/**
 * Opens the database for `work`. Commands that only read what scan wrote
 * (`existing`) refuse a missing file instead of creating an empty database
 * under a mistyped --db.
 */
async function withDb<T>(config: ResolvedConfig, work: (db: Db) => Promise<T>, existing = false, waitForJob = false): Promise<T> {
  if (existing && config.dbPath !== ':memory:' && !existsSync(config.dbPath)) {
    throw new UsageError(`database ${config.dbPath} does not exist; run \`pegscope scan --network ${config.network.name}\` (or \`pegscope job\`) first, `
      + 'which creates it, or give --db the file scan wrote');
  }
  const { Db } = await import('./store/db.js');
  const db = waitForJob ? await openWhenFree(() => Db.open(config.dbPath)) : await Db.open(config.dbPath);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

/** How long a watch command waits for a running job (`job --every`, `demo --live`) to let go of the database. */
const WAIT_FOR_JOB_MS = 60_000;

/** Opens the database, waiting while a job run holds it (its runs are short; the watchlist is edited between them). */
async function openWhenFree(open: () => Promise<Db>): Promise<Db> {
  const deadline = Date.now() + WAIT_FOR_JOB_MS;
  for (let said = false; ; said = true) {
    try {
      return await open();
    } catch (err) {
      if (!/in use by another pegscope process/.test((err as Error).message) || Date.now() > deadline) throw err;
      if (!said) log('the database is in use by a running job; waiting for its run to end');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

export function buildProgram(): Command {
  const program = new Command('pegscope')
    .description('Analyses Litecoin MWEB peg-ins and peg-outs and publishes a static JSON/CSV API.\n'
      + 'Links are heuristic inferences from public chain data, never proof.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride();

  withSource(withNode(withCommon(program.command('scan').description('read new blocks into DuckDB'))))
    .action(async (flags: SourceFlags) => {
      const config = resolveConfig(flags);
      const [{ openSource }, { scanChain }] = await Promise.all([import('./sources.js'), import('./store/scan.js')]);
      const source = openSource(config, sourceOptions(flags));
      try {
        const result = await withDb(config, (db) => scanChain(db, source, { to: flags.to, allowSyncing: flags.allowSyncing, progress: consoleProgress(), log }));
        log(`scan: heights ${result.fromHeight}..${result.toHeight}, ${result.blocks} blocks, ${result.pegins} peg-ins, ${result.pegouts} peg-outs`
          + (result.reorgDepth ? `, reorg of ${result.reorgDepth} blocks undone` : ''));
      } finally {
        await source.close();
      }
    });

  withMemory(withAnalysis(withCommon(program.command('analyze').description('recompute every derived table atomically'))))
    .option('--full', 'recompute the links and anonymity sets of every peg, not only those the new blocks can change')
    .action(async (flags: CommonOptions & MemoryFlags & { horizon: number; full?: boolean }) => {
      const config = resolveConfig(flags);
      const { analyze } = await import('./analysis/analyze.js');
      await withDb(config, async (db) => { await analyze(db, { horizon: flags.horizon, full: flags.full, memoryLimitMb: flags.memoryLimit, log }); }, true);
    });

  withMemory(withRelease(withCommon(program.command('export').description('write and publish a new release of the static tree'))))
    .action(async (flags: CommonOptions & ReleaseFlags & MemoryFlags) => {
      const config = resolveConfig(flags);
      const release = await releaseOptions(flags);
      const { exportRelease } = await import('./export/export.js');
      await withDb(config, (db) => exportRelease(db, { outDir: config.outDir, ...release, memoryLimitMb: flags.memoryLimit, progress: consoleProgress(), log }), true);
    });

  withWebhooks(withMemory(withAnalysis(withRelease(withSource(withNode(withCommon(program.command('job').description('scan + analyze + export (+ notify the watchlist); --every repeats it'))))))))
    .option('--every <duration>', 'repeat every duration (30s, 5m, 1h); one run at a time; with --config each run does every network in turn', durationFlag('--every'))
    .option('--labels <files...>', 'label files to import before analysing, their format told by each file (docs/labels.md); a rejected row fails the run')
    .option('--skip-invalid-labels', 'import the valid labels of --labels even when some are rejected')
    .option('--labels-public', 'import the tags of TagPacks in --labels that do not set is_public (packs from a public source, such as graphsense-tagpacks)')
    .option('--config <file>', 'run every network of a config file in turn, one after the other (docs/deploy.md)')
    .addOption(new Option('--grow <blocks>', 'with --source sim: the simulated chain grows by this many blocks a run past its preset (pair with --every; give it a --db of its own: docs/notifications.md)')
      .argParser(parseInteger('--grow', 1, MAX_GROW_BLOCKS)).conflicts('to'))
    .option('--json', 'print a summary of each run as one line of JSON on standard output (published: false when nothing changed, release_id, as_of_height, files written, linked and changed, seconds); the log stays on standard error')
    .action(async (flags: SourceFlags & JobOptions & ReleaseFlags & MemoryFlags & WebhookFlags & { every?: string; config?: string; horizon: number; json?: boolean; grow?: number }) => {
      const configs = flags.config ? loadConfigFile(flags.config).map((site) => site.config) : [resolveConfig(flags)];
      const options: JobOptions = { ...sourceOptions(flags), grow: flags.grow, to: flags.to, allowSyncing: flags.allowSyncing, horizon: flags.horizon, memoryLimitMb: flags.memoryLimit, ...await releaseOptions(flags), labels: flags.labels,
        skipInvalidLabels: flags.skipInvalidLabels, labelsPublic: flags.labelsPublic, allowPrivateWebhooks: allowPrivateWebhooks(flags), log, onSummary: flags.json ? printJson : undefined };
      const { runJobs, runJobsEvery } = await import('./job.js');
      await (flags.every ? runJobsEvery(configs, options, flags.every) : runJobs(configs, options));
    });

  withCommon(program.command('serve').description('serve the published tree as the JSON API'), NO_DB)
    .option('--port <n>', `port (env PEGSCOPE_PORT, default ${DEFAULT_PORT})`, parseInteger('--port', 0, MAX_PORT))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--rate-limit <n>', 'API requests per minute per client IP (0 disables); the page and files by name are not counted', parseInteger('--rate-limit', 0, MAX_RATE_LIMIT), 60)
    .option('--keys <file>', 'API keys file with per-key limits (sent as X-API-Key)')
    .option('--trust-proxy', 'take the client IP from X-Forwarded-For (only behind your own proxy)')
    .option('--config <file>', 'serve several networks from one config file (docs/deploy.md)')
    .option('--stale-after <duration>', 'health.ok turns false when the job\'s last check (or the analysis) is older than this', durationFlag('--stale-after'), `${DEFAULT_STALE_AFTER_SECONDS}s`)
    .option('--cache <duration>', 'how long caches may keep a response; match the job\'s --every', durationFlag('--cache'), `${DEFAULT_CACHE_SECONDS}s`)
    .option('--workers <n>', `processes serving the port (default: one per CPU, here ${availableParallelism()}; 1 serves from this process)`, parseInteger('--workers', 1, MAX_WORKERS))
    .option('--answer-cache <MiB>', `finished answers each worker keeps in memory (default ${DEFAULT_CACHE_LIMITS.answers.maxBytes! / MIB})`, parseInteger('--answer-cache', 1, MAX_ANSWER_CACHE_MIB))
    .action(async (flags: CommonOptions & { port?: number; host: string; rateLimit: number; keys?: string; trustProxy?: boolean; config?: string; staleAfter: string; cache: string; workers?: number; answerCache?: number }) => {
      const sites = flags.config
        ? loadConfigFile(flags.config).map((site) => ({ network: site.config.network.name, outDir: site.config.outDir, hostnames: site.hostnames }))
        : [{ network: resolveConfig(flags).network.name, outDir: resolveConfig(flags).outDir }];
      const where = sites.map((s) => `${s.network} from ${s.outDir}`).join(', ');
      const answers = { ...DEFAULT_CACHE_LIMITS.answers, ...(flags.answerCache ? { maxBytes: flags.answerCache * MIB } : {}) };
      // Every flag is checked here, in the primary too, so a usage error stops the command before any worker starts.
      const options: ServeOptions = { sites, host: flags.host, port: portOf(flags), rateLimit: flags.rateLimit, keysFile: flags.keys, trustProxy: flags.trustProxy,
        staleAfterSeconds: parseDuration(flags.staleAfter, '--stale-after') / 1000, cacheSeconds: parseDuration(flags.cache, '--cache') / 1000, cacheLimits: { answers },
      };
      const { runServe } = await import('./serve/run.js');
      await runServe({ options, workers: flags.workers ?? availableParallelism(), where, log, logLine });
    });

  const labels = program.command('labels').description('address labels from label files and the public record (docs/labels.md)');
  withCommon(labels.command('import').description('import labels: CSV (address,entity,category,confidence,source[,terms]), JSON ({"labels":[…]}), the OFAC SDN list (sdn.xml), GraphSense TagPacks (YAML files or a directory) or a mining-pool list (pools-v2.json shape); each source the files name replaces its earlier import'), NO_OUT)
    .argument('<files...>', 'label files, TagPack directories')
    .addOption(new Option('--format <format>', 'the files\' format (default: told by each file\'s extension, else its first bytes)').choices(LABEL_FORMATS))
    .option('--skip-invalid', 'import the valid labels even when some are rejected (by default a rejected row imports nothing)')
    .option('--terms <text>', 'terms or licence of labels whose source states none (a label file\'s rows without terms, a pool list, a TagPack without license)')
    .option('--public', 'import the tags of TagPacks that do not set is_public (a pack is private unless told otherwise): packs from a public source, such as graphsense-tagpacks')
    .action(async (files: string[], flags: CommonOptions & { format?: LabelFormat; skipInvalid?: boolean; terms?: string; public?: boolean }) => {
      const config = resolveConfig(flags);
      const { importLabels, importNotes, importSummary } = await import('./analysis/labels.js');
      const result = await withDb(config, (db) => importLabels(db, files, config.network, { format: flags.format, skipInvalid: flags.skipInvalid, terms: flags.terms, public: flags.public }), true);
      for (const r of result.rejected) log(`rejected ${r.file}:${r.line}: ${r.reason}`);
      for (const note of importNotes(result, { name: '--public', given: flags.public ?? false })) log(note);
      log(importSummary(result));
      if (!result.written) {
        log('labels: nothing was imported; fix the rejected rows and import again, or pass --skip-invalid to import the valid ones');
        process.exitCode = 1;
      }
    });

  addWatchCommands(program);

  program.command('keygen').description('make an Ed25519 key pair in minisign\'s formats to sign releases with (docs/verifying.md); prints the key id and the public key')
    .requiredOption('--secret-key <file>', 'the secret key file to create (mode 0600; an existing file is never overwritten); give it to export/job --sign-key')
    .requiredOption('--public-key <file>', 'the public key file to create; publish it, and pin the key in clients and mirrors')
    .action(async (flags: { secretKey: string; publicKey: string }) => {
      const { createKeyPair, KeyFileError } = await import('./trust/keys.js');
      const { publicKeyFile } = await import('./trust/minisign.js');
      let key: SecretKey;
      try {
        key = await createKeyPair(flags.secretKey, flags.publicKey);
      } catch (err) {
        throw err instanceof KeyFileError ? new UsageError(err.message) : err;
      }
      const line = publicKeyFile(key).split('\n')[1]!;
      process.stdout.write(`key id ${key.keyIdHex}\npublic key ${line}\n`);
      log(`keygen: secret key in ${flags.secretKey} (keep it private; back it up), public key in ${flags.publicKey}`);
    });

  program.command('verify').description('check a release directory against its manifest.json: every listed file with its size and sha256, nothing else; exit status 0 ok, 1 problems found, 2 not a release directory')
    .argument('<dir>', 'a release directory: out/<network>/current, releases/<id>, or a mirror\'s copy')
    .option('--json', 'print one JSON object on standard output instead of lines: release_id, as_of_height, files, bytes, ok, problem_counts, problems, signature, seconds (same exit status)')
    .option('--public-key <key>', 'also require manifest.json.minisig and the wallet\'s index signed by this key: a minisign public key (RW…) or its file; repeat it or separate keys with commas to accept any of them (key rotation; docs/verifying.md)', collect, [])
    .action(async (dir: string, flags: { json?: boolean; publicKey: string[] }) => {
      const [{ formatProblem, formatVerdict, isOk, verifyRelease }, { verifySummary }, { KeyFileError, readPublicKeys }] = await Promise.all([import('./export/verify.js'), import('./summary.js'), import('./trust/keys.js')]);
      let publicKeys;
      try {
        publicKeys = flags.publicKey.length > 0 ? readPublicKeys(flags.publicKey) : undefined;
      } catch (err) {
        throw err instanceof KeyFileError ? new UsageError(err.message) : err;
      }
      const write = (line: string) => { process.stdout.write(`${line}\n`); };
      const started = performance.now();
      const problems: Problem[] = [];
      const result = await verifyRelease(dir, { progress: consoleProgress(), publicKeys, onProblem: (problem) => (flags.json ? problems.push(problem) : write(formatProblem(problem))) });
      if (flags.json) printJson(await verifySummary(result, isOk(result), problems, started));
      else write(formatVerdict(result));
      if (!isOk(result)) process.exitCode = 1;
    });

  program.command('mirror').description('keep a verified copy of a signed release: check manifest.json\'s signature, download only the files the copy lacks, publish it atomically (docs/mirror.md); no node, no DuckDB')
    .argument('<origin-url>', 'the root of the origin\'s release, where manifest.json and manifest.json.minisig are (e.g. https://pegscope.example/)')
    .requiredOption('--out <dir>', 'the copy: current -> releases/<id>, what `serve --out`, nginx and the host configs read')
    .option('--public-key <key>', 'a trusted minisign public key (RW…) or its file; repeat it or separate keys with commas during a key rotation (docs/verifying.md); required', collect, [])
    .option('--every <duration>', 'pull again every duration (30s, 5m, 1h); a refused pull is logged and tried again')
    .option('--keep <n>', 'complete releases to keep', parseInteger('--keep', 1, MAX_KEEP), DEFAULT_KEEP_RELEASES)
    .option('--concurrency <n>', 'downloads at once', parseInteger('--concurrency', 1, MAX_MIRROR_CONCURRENCY), 8)
    .option('--json', 'print each pull as one line of JSON on standard output: status, release_id, as_of_height, files and bytes fetched, resumed, linked and refused, problems, seconds')
    .action(async (origin: string, flags: { out: string; publicKey: string[]; every?: string; keep: number; concurrency: number; json?: boolean }) => {
      const [{ pullEvery, pullRelease }, { originBase }, { readPublicKeys }] = await Promise.all([import('./mirror/mirror.js'), import('./mirror/origin.js'), import('./trust/keys.js')]);
      if (flags.publicKey.length === 0) throw new UsageError('--public-key is required: the publisher\'s minisign public key (RW…) or its file, which every release must be signed by');
      let publicKeys;
      try {
        originBase(origin);
        publicKeys = readPublicKeys(flags.publicKey);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const intervalMs = flags.every === undefined ? undefined : parseDuration(flags.every, '--every', MAX_INTERVAL_MS);
      const options = { origin, outDir: flags.out, publicKeys, keep: flags.keep, concurrency: flags.concurrency, progress: consoleProgress(), log };
      const report = (summary: MirrorSummary) => {
        if (flags.json) printJson(summary);
        else for (const problem of summary.problems) log(`mirror refused: ${problem}`);
      };
      if (intervalMs !== undefined) return pullEvery(options, intervalMs, report);
      const summary = await pullRelease(options);
      report(summary);
      if (!summary.ok) process.exitCode = 1;
    });

  program.command('demo').description('run the job on the built-in demo chain, then serve it (what `npm start` does)')
    .option('--port <n>', `port (env PEGSCOPE_PORT, default ${DEFAULT_PORT})`, parseInteger('--port', 0, MAX_PORT))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--live', 'then grow the chain by a block every --block-every and run the job on each, webhooks to this machine allowed (its own data/sim-live.duckdb and out/sim-live; docs/notifications.md)')
    .option('--block-every <duration>', 'with --live: how often a block arrives (5s, 1m)', durationFlag('--block-every'), '10s')
    .action(async (flags: { port?: number; host: string; live?: boolean; blockEvery: string }) => {
      const { runDemo } = await import('./demo.js');
      await runDemo({ host: flags.host, port: portOf(flags), log, live: flags.live ? { every: flags.blockEvery } : undefined });
    });

  shortUsageErrors(program);
  return program;
}

/**
 * A usage mistake (an unknown option or command, a missing argument, a value
 * outside the choices) is two lines on standard error: what was wrong, and
 * where the usage is; not the whole help, which buries the first line.
 */
function shortUsageErrors(cmd: Command, name = 'pegscope'): void {
  cmd.showHelpAfterError(`run \`${name} --help\` for usage`);
  // commander puts its "Did you mean" on a line of its own: it joins the first line here.
  // A value parser's message names the flag and the value already: commander's "option … argument … is invalid." before it goes.
  cmd.configureOutput({
    outputError: (text, write) => write(`${name}: ${text.replace(/^error: /, '').replace(/^option '[^']+' argument '[^\n]*?' is invalid\. /, '').replace(/\n\(Did you mean (.+)\?\)\n$/, ' (did you mean $1?)\n')}`),
  });
  for (const sub of cmd.commands) shortUsageErrors(sub, `${name} ${sub.name()}`);
}

/** `--json`: one document a line on standard output, nothing else there. */
const printJson = (value: object): void => { process.stdout.write(`${JSON.stringify(value)}\n`); };

interface WebhookFlags { allowPrivateWebhooks?: boolean }

/** Where webhooks may go: public addresses only, unless the flag or PEGSCOPE_ALLOW_PRIVATE_WEBHOOKS=1 allows loopback and private ones. */
function withWebhooks(cmd: Command): Command {
  return cmd.option('--allow-private-webhooks', 'let webhooks go to loopback, private and link-local addresses (env PEGSCOPE_ALLOW_PRIVATE_WEBHOOKS=1; docs/notifications.md)');
}

const allowPrivateWebhooks = (flags: WebhookFlags): boolean => flags.allowPrivateWebhooks === true || process.env.PEGSCOPE_ALLOW_PRIVATE_WEBHOOKS === '1';

function parseConfidence(text: string): number {
  const value = Number(text);
  if (!/^(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/.test(text) || !(value >= 0 && value <= 1)) throw new UsageError(`--min-confidence must be a number from 0 to 1, got "${text}"`);
  return value;
}

function readSecretFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new UsageError(`--secret-file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/** `pegscope watch …`: the watchlist in the database (docs/notifications.md). */
function addWatchCommands(program: Command): void {
  const print = (line: string) => { process.stdout.write(`${terminal(line)}\n`); };
  const watch = program.command('watch').description('a watchlist of addresses whose peg-ins, peg-outs, links and attribution are sent to signed webhooks (docs/notifications.md)');

  withWebhooks(withCommon(watch.command('add').description('watch an address: prints the watch id and its whsec_ signing secret (shown only this once)'), NO_OUT))
    .argument('<address>', 'the address to watch')
    .requiredOption('--webhook <url>', 'http(s) URL events are POSTed to')
    .option('--label <label>', 'a name events carry')
    .option('--min-confidence <x>', 'links at or above this confidence are reported (default 0.5)', parseConfidence)
    .option('--since <height>', 'report facts in blocks from this height on (default: blocks after the scanned tip)', parseInteger('--since', 0, MAX_HEIGHT))
    .option('--secret-file <file>', 'use the whsec_ secret in this file instead of a new one')
    .action(async (address: string, flags: CommonOptions & WebhookFlags & { webhook: string; label?: string; minConfidence?: number; since?: number; secretFile?: string }) => {
      const config = resolveConfig(flags);
      const secret = flags.secretFile === undefined ? undefined : readSecretFile(flags.secretFile);
      const [{ addWatch }, { sharedDatabaseFiles, withPrivateFiles }] = await Promise.all([import('./notify/watchlist.js'), import('./store/db.js')]);
      const added = await withPrivateFiles(() => withDb(config, (db) => addWatch(db, config.network, {
        address, url: flags.webhook, label: flags.label, minConfidence: flags.minConfidence, since: flags.since, secret, allowPrivate: allowPrivateWebhooks(flags),
      }, Date.now()), true, true));
      for (const { file, mode } of sharedDatabaseFiles(config.dbPath)) {
        log(`warning: ${file} (mode ${mode.toString(8).padStart(4, '0')}) can be read or changed by other users, and it holds every watch's webhook secret and URL; `
          + `run \`chmod 600 ${file}\` (docs/deploy.md "The database is private")`);
      }
      print(`watch ${added.id} on ${address}: events from height ${added.since}`);
      if (secret === undefined) print(`secret ${added.secret}`);
    });

  withCommon(watch.command('list').description('the watches, with their deliveries pending, delivered and failed (never their secrets)'), NO_OUT)
    .action(async (flags: CommonOptions) => {
      const config = resolveConfig(flags);
      const { listWatches } = await import('./notify/watchlist.js');
      const { originOf } = await import('./notify/target.js');
      const watches = await withDb(config, (db) => listWatches(db));
      if (watches.length === 0) print('no watches; add one with `pegscope watch add ADDRESS --webhook URL`');
      for (const w of watches) {
        print(`${w.id} ${w.address} → ${originOf(new URL(w.url))}${w.label ? ` "${w.label}"` : ''} min-confidence ${w.min_confidence} since ${w.since_height}: `
          + `${w.pending} pending, ${w.delivered} delivered, ${w.failed} failed`);
      }
    });

  withCommon(watch.command('remove').description('remove a watch by id, or every watch of an address, with its pending deliveries'), NO_OUT)
    .argument('<address-or-id>', 'a watch id (w_…) or a watched address')
    .action(async (what: string, flags: CommonOptions) => {
      const config = resolveConfig(flags);
      const { removeWatches } = await import('./notify/watchlist.js');
      const removed = await withDb(config, (db) => removeWatches(db, what), true);
      if (removed.length === 0) throw new UsageError(`no watch has the id or address ${what}; \`pegscope watch list\` shows them`);
      print(`removed ${removed.join(', ')}`);
    });

  withWebhooks(withCommon(watch.command('test').description('send a signed watch.test event to a watch\'s webhook now'), NO_OUT))
    .argument('<id>', 'the watch id')
    .action(async (id: string, flags: CommonOptions & WebhookFlags) => {
      const config = resolveConfig(flags);
      const [{ findWatch }, { testData }, { sendTest }] = await Promise.all([import('./notify/watchlist.js'), import('./notify/event.js'), import('./notify/deliver.js')]);
      const found = await withDb(config, (db) => findWatch(db, id), true);
      if (!found) throw new UsageError(`no watch has the id ${id}; \`pegscope watch list\` shows them`);
      const data = testData(config.network.name, found, String(Date.now()));
      const outcome = await sendTest(found, data, { allowPrivate: allowPrivateWebhooks(flags) });
      if (outcome.ok) print(`${data.id} delivered: HTTP ${outcome.status}`);
      else {
        log(`watch test: ${data.id} not delivered: ${outcome.error}`);
        process.exitCode = 1;
      }
    });

  withWebhooks(withCommon(watch.command('deliver').description('attempt every due delivery of the outbox now (what the job does after it publishes)'), NO_OUT))
    .action(async (flags: CommonOptions & WebhookFlags) => {
      const config = resolveConfig(flags);
      const [{ deliverDue, summaryLine, DELIVERY_BUDGET_MS }, { acquireJobLock }] = await Promise.all([import('./notify/deliver.js'), import('./lock.js')]);
      const release = acquireJobLock(config.dbPath);
      try {
        const summary = await withDb(config, (db) => deliverDue(db, { allowPrivate: allowPrivateWebhooks(flags), log, deadline: Date.now() + DELIVERY_BUDGET_MS }), true);
        log(summaryLine(summary));
      } finally {
        release();
      }
    });
}

/** Maps errors to exit codes in one place: 2 usage, 1 any other failure. */
/** The (sub)command `argv` names (`job`, `watch add`): its leading words that name commands. */
function commandPath(argv: readonly string[]): string[] {
  const path: string[] = [];
  let cmd: Command | undefined = buildProgram();
  for (const word of argv) {
    cmd = cmd.commands.find((sub) => sub.name() === word);
    if (!cmd) break;
    path.push(word);
  }
  return path;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return 0;
      return 2;
    }
    if (err instanceof UsageError) {
      const name = ['pegscope', ...commandPath(argv)].join(' ');
      process.stderr.write(err.showUsage ? `${name}: ${terminal(err.message)}\nrun \`${name} --help\` for usage\n` : `pegscope: ${terminal(err.message)}\n`);
      return 2;
    }
    process.stderr.write(`pegscope: ${terminal(err instanceof Error ? err.message : String(err))}\n`);
    if (process.env.PEGSCOPE_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return 1;
  }
}

/**
 * What every bench:* script shares: its flags (node:util parseArgs, so an
 * unknown flag or a flag without its value is an error that names it, and
 * --help lists them), wall time, and the process's peak memory.
 */
import { parseArgs } from 'node:util';
import { SIM_PRESET_NAMES, type SimPresetName } from '../../src/chain/sim/index.js';

/** One flag: its kind, its default and a line for --help. */
export type Flag =
  | { type: 'integer'; default: number; help: string }
  | { type: 'optional-integer'; help: string }
  | { type: 'string'; default: string; help: string }
  | { type: 'boolean'; help: string }
  | { type: 'repeated'; help: string };

type Value<F extends Flag> =
  F extends { type: 'integer' } ? number
    : F extends { type: 'optional-integer' } ? number | undefined
      : F extends { type: 'string' } ? string
        : F extends { type: 'boolean' } ? boolean
          : string[];

export type Flags<T extends Record<string, Flag>> = { [K in keyof T]: Value<T[K]> };

/** A command line the bench cannot run: says what was wrong and what is allowed, and exits 2. */
export function usageError(message: string): never {
  console.error(message);
  process.exit(2);
}

/**
 * The bench's flags from argv. `--help` prints `summary` and the flags and
 * exits; anything else unexpected is a usage error naming the bench.
 */
export function benchFlags<T extends Record<string, Flag>>(bench: string, summary: string, flags: T, argv: string[] = process.argv.slice(2)): Flags<T> {
  const usages = Object.entries(flags).map(([name, flag]) => [`--${name}${flag.type === 'boolean' ? '' : ' <value>'}`, flag] as const);
  const width = Math.max(...usages.map(([usage]) => usage.length));
  const help = (): string => [`npm run ${bench} -- [flags]`, summary, '', ...usages.map(([usage, flag]) => {
    const fallback = 'default' in flag ? ` (default ${flag.default})` : '';
    return `  ${usage.padEnd(width)}  ${flag.help}${fallback}`;
  })].join('\n');
  if (argv.includes('--help')) {
    console.log(help());
    process.exit(0);
  }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(flags).map(([name, flag]) => [name, { type: flag.type === 'boolean' ? 'boolean' : 'string', multiple: flag.type === 'repeated' }] as const)),
    }).values;
  } catch (err) {
    usageError(`${bench}: ${(err as Error).message}\n${help()}`);
  }
  const parsed: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(flags)) {
    const value = values[name];
    if (flag.type === 'integer' || flag.type === 'optional-integer') {
      parsed[name] = value === undefined ? ('default' in flag ? flag.default : undefined) : integer(bench, name, value as string);
    } else if (flag.type === 'string') parsed[name] = value ?? flag.default;
    else if (flag.type === 'boolean') parsed[name] = value ?? false;
    else parsed[name] = value ?? [];
  }
  return parsed as Flags<T>;
}

function integer(bench: string, name: string, value: string): number {
  if (!/^\d+$/.test(value)) usageError(`${bench}: --${name} must be a whole number ≥ 0, not "${value}"`);
  return Number(value);
}

/** A sim preset's name, checked. */
export function simPreset(bench: string, name: string): SimPresetName {
  if (!(SIM_PRESET_NAMES as readonly string[]).includes(name)) usageError(`${bench}: unknown preset "${name}"; allowed: ${SIM_PRESET_NAMES.join(', ')}`);
  return name as SimPresetName;
}

/** Sim presets from a comma-separated list, each checked. */
export const simPresets = (bench: string, list: string): SimPresetName[] => list.split(',').map((name) => simPreset(bench, name));

/** Seconds since `start` (a performance.now() reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;

/** Runs `work` and returns its value with the wall seconds it took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = performance.now();
  const value = await work();
  return { value, seconds: secondsSince(start) };
}

/** This process's peak resident set so far (DuckDB runs inside it), in MB. */
export const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;

/** RSS sampled every 50 ms while `work` runs: its own peak, where peakRssMb also counts what ran before it. */
export async function sampledPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakRssMb: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 50);
  try {
    const value = await work();
    return { value, peakRssMb: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

import cliProgress from 'cli-progress';

/** Progress of long work: a bar on a TTY, a log line every few seconds otherwise. */
export interface Progress {
  start(label: string, total: number, unit: string): void;
  update(done: number): void;
  stop(): void;
}

export const silentProgress: Progress = { start() {}, update() {}, stop() {} };

export function consoleProgress(stream: NodeJS.WriteStream = process.stderr, intervalMs = 5000): Progress {
  return stream.isTTY ? barProgress(stream) : logProgress(stream, intervalMs);
}

function ratePerSecond(done: number, startedAt: number): number {
  const seconds = (Date.now() - startedAt) / 1000;
  return seconds > 0 ? done / seconds : 0;
}

/** One decimal below 10/s, so slow work never shows "0/s". */
function formatRate(rate: number): string {
  return rate < 10 ? rate.toFixed(1) : String(Math.round(rate));
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  let bar: cliProgress.SingleBar | undefined;
  let startedAt = 0;
  return {
    start(label, total, unit) {
      bar = new cliProgress.SingleBar({
        stream,
        format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {speed} ${unit}/s | ETA {eta_formatted}`,
        hideCursor: true,
      }, cliProgress.Presets.shades_classic);
      bar.start(total, 0, { speed: '0' });
      startedAt = Date.now();
    },
    update(done) {
      bar?.update(done, { speed: formatRate(ratePerSecond(done, startedAt)) });
    },
    stop() { bar?.stop(); bar = undefined; },
  };
}

function logProgress(stream: NodeJS.WriteStream, intervalMs: number): Progress {
  let label = '', unit = '', total = 0, startedAt = 0, lastLog = 0, last = 0;
  const line = (done: number) => {
    const rate = ratePerSecond(done, startedAt);
    const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
    stream.write(`${label}: ${done}/${total} ${unit} (${formatRate(rate)} ${unit}/s, ETA ${eta}s)\n`);
  };
  return {
    start(l, t, u) { label = l; total = t; unit = u; startedAt = lastLog = Date.now(); last = 0; },
    update(done) {
      last = done;
      if (Date.now() - lastLog >= intervalMs) { lastLog = Date.now(); line(done); }
    },
    stop() { if (total > 0) line(last); total = 0; },
  };
}

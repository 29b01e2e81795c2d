/**
 * The charts page (loaded on demand, with uPlot): MWEB supply, daily pegs,
 * peg-in amounts on a log scale and link confidence, from the small series
 * the export precomputes (api/series/*.json).
 */
import uPlot from 'uplot';
import type { SeriesName } from '../api/series.js';
import { h, show, type Child } from './dom.js';
import { coin, count, utc } from './format.js';
import * as data from './data.js';

const HEIGHT = 260;

interface Colors { axis: string; grid: string; series: string[] }

/** Chart colours follow the page's (light or dark) theme. */
function colors(): Colors {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string): string => css.getPropertyValue(name).trim();
  return { axis: v('--text-muted'), grid: v('--grid'), series: [v('--chart-1'), v('--chart-2'), v('--chart-3')] };
}

interface ChartSpec {
  id: string;
  title: string;
  summary: string;
  source: SeriesName;
  /** Legend entries: label and colour (index into the theme's chart colours), in series order. */
  legend: [string, number][];
  options: (c: Colors) => Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
}

function axes(c: Colors, yLabel: string, x: Partial<uPlot.Axis> = {}): uPlot.Axis[] {
  const common = { stroke: c.axis, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 } };
  return [{ ...common, ...x }, { ...common, label: yLabel, size: 70 }];
}

/** Day axes in UTC, like the series' days. */
const utcDates = (ts: number): Date => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC');

function line(label: string, stroke: string, extra: Partial<uPlot.Series> = {}): uPlot.Series {
  return { label, stroke, width: 2, points: { show: false }, ...extra };
}

const bars = (): uPlot.Series.PathBuilder => uPlot.paths.bars!({ size: [0.85, 60], align: 1 });

export async function render(main: HTMLElement): Promise<void> {
  const [daily, amounts, confidence, envelope] = await Promise.all([data.series('daily'), data.series('pegin_amounts'), data.series('link_confidence'), data.envelope()]);
  const unit = envelope.unit;
  const d = daily.series;
  const a = amounts.series;
  const popularBucket = a.low.map((low, i) => a.popular.some((p) => p.amount >= low && p.amount < a.high[i]!) ? a.count[i]! : null);
  const last = d.day.length - 1;
  const specs: ChartSpec[] = [
    {
      id: 'chart-supply', title: 'MWEB supply', source: 'daily', legend: [[`Supply (${unit})`, 0]],
      summary: last >= 0 ? `Supply ${coin(d.supply[last]!)} ${unit} on ${utc(d.day[last]!).slice(0, 10)}, ${d.day.length} days shown.` : 'No MWEB block yet.',
      options: (c) => ({ scales: { x: { time: true } }, tzDate: utcDates, axes: axes(c, unit), series: [{}, line('Supply', c.series[0]!, { fill: `${c.series[0]!}33` })] }),
      data: [d.day, d.supply],
    },
    {
      id: 'chart-pegs', title: 'Peg-ins and peg-outs per day', source: 'daily', legend: [['Peg-ins', 0], ['Peg-outs', 1]],
      summary: `${count(sum(d.pegin_count))} peg-ins and ${count(sum(d.pegout_count))} peg-outs over ${d.day.length} days.`,
      options: (c) => ({ scales: { x: { time: true } }, tzDate: utcDates, axes: axes(c, 'count'), series: [{}, line('Peg-ins', c.series[0]!), line('Peg-outs', c.series[1]!)] }),
      data: [d.day, d.pegin_count, d.pegout_count],
    },
    {
      id: 'chart-amounts', title: 'Amount pegged in and out per day', source: 'daily', legend: [[`Pegged in (${unit})`, 0], [`Pegged out (${unit})`, 1]],
      summary: `${coin(sum(d.pegin_amount))} ${unit} pegged in and ${coin(sum(d.pegout_amount))} ${unit} pegged out over ${d.day.length} days.`,
      options: (c) => ({ scales: { x: { time: true } }, tzDate: utcDates, axes: axes(c, unit), series: [{}, line('In', c.series[0]!), line('Out', c.series[1]!)] }),
      data: [d.day, d.pegin_amount, d.pegout_amount],
    },
    {
      id: 'chart-distribution', title: 'Peg-in amounts (log scale)', source: 'pegin_amounts', legend: [['Peg-ins per bucket (10 per decade)', 0], ['Buckets holding one of the 10 most used amounts', 2]],
      summary: `Most common amounts: ${a.popular.slice(0, 5).map((p) => `${coin(p.amount)} (${count(p.count)}×)`).join(', ') || 'none'}.`,
      options: (c) => ({
        scales: { x: { time: false, distr: 3, log: 10 } },
        axes: axes(c, 'peg-ins', { label: `amount (${unit})`, values: (_u, ticks) => ticks.map((t) => (t === null ? '' : coin(t))) }),
        series: [{}, { label: 'Peg-ins', stroke: c.series[0]!, fill: `${c.series[0]!}55`, paths: uPlot.paths.stepped!({ align: 1 }), points: { show: false } },
          { label: 'Popular', stroke: c.series[2]!, width: 0, paths: () => null, points: { show: true, size: 10, fill: c.series[2]!, stroke: c.series[2]! } }],
      }),
      data: [a.low, a.count, popularBucket],
    },
    {
      id: 'chart-confidence', title: 'Link confidence', source: 'link_confidence', legend: [['Reported links per 0.05 of confidence', 1]],
      summary: `${count(sum(confidence.series.count))} reported links; ${count(sum(confidence.series.count.slice(18)))} at 0.9 or more.`,
      options: (c) => ({
        scales: { x: { time: false, range: [0, 1] } },
        axes: axes(c, 'links', { label: 'confidence' }),
        series: [{}, { label: 'Links', stroke: c.series[1]!, fill: `${c.series[1]!}99`, paths: bars(), points: { show: false } }],
      }),
      data: [confidence.series.low, confidence.series.count],
    },
  ];
  show(main,
    h('h1', { tabindex: -1 }, 'Charts'),
    h('p', {}, 'From the small series each release publishes (api/series/); each chart links to its data.'),
    specs.map((spec) => figure(spec)),
    h('section', { 'aria-labelledby': 'calibration-h' },
      h('h2', { id: 'calibration-h' }, 'Calibration'),
      h('p', {}, 'No calibration plot: how well confidence matches reality can only be measured where the true round trips are known, i.e. on the simulated chain by the quality benchmark (npm run bench:quality, summarised in the methodology). Releases publish no such ground truth, so there is nothing to plot here.')));
  const c = colors();
  for (const spec of specs) draw(spec, c);
}

function figure(spec: ChartSpec): Child {
  const c = colors();
  return h('figure', { class: 'chart', id: spec.id, 'data-series-color': c.series[spec.legend[0]![1]] },
    h('h2', {}, spec.title),
    h('div', { class: 'plot', role: 'img', 'aria-label': `${spec.title}. ${spec.summary}` }),
    h('figcaption', {},
      h('ul', { class: 'legend' }, spec.legend.map(([label, color]) => h('li', { class: `swatch-${color + 1}` }, label))),
      h('p', {}, spec.summary, ' ', h('a', { href: `api/series/${spec.source}.json` }, 'Data (JSON)'))));
}

function draw(spec: ChartSpec, c: Colors): void {
  const plot = document.querySelector(`#${spec.id} .plot`) as HTMLElement;
  const width = Math.max(280, plot.clientWidth);
  const chart = new uPlot({ ...spec.options(c), width, height: HEIGHT, legend: { show: false } }, spec.data, plot);
  const resize = new ResizeObserver(() => {
    // Gone with the page it was drawn on.
    if (!plot.isConnected) {
      resize.disconnect();
      chart.destroy();
      return;
    }
    chart.setSize({ width: Math.max(280, plot.clientWidth), height: HEIGHT });
  });
  resize.observe(plot);
}

function sum(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0);
}

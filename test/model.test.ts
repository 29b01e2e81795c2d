import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bindSql, DEFAULT_PARAMS, LABEL_CATEGORIES, LINK_PARAMS, MODEL_FACT_GROUPS, modelSqlValues,
} from '../src/domain/model.js';
import { modelFactsSection, renderModelFacts, withModelFacts } from '../scripts/lib/model-doc.js';

const ROOT = join(import.meta.dirname, '..');
const ANALYSIS_DIR = join(ROOT, 'src', 'analysis');
const METHODOLOGY = readFileSync(join(ROOT, 'docs', 'methodology.md'), 'utf8');
const AMOUNTS_DOC = readFileSync(join(ROOT, 'docs', 'amounts.md'), 'utf8');
const analysisSql = readdirSync(ANALYSIS_DIR).filter((f) => f.endsWith('.sql'))
  .map((file) => ({ file, sql: readFileSync(join(ANALYSIS_DIR, file), 'utf8') }));
const allFacts = MODEL_FACT_GROUPS.flatMap((g) => Object.entries(g.facts));

/** Numeric literals outside comments and string literals. */
function numericLiterals(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, '').replace(/'(?:[^']|'')*'/g, "''");
  return code.match(/(?<![\w.{])\d+(?:\.\d+)?(?:e\d+)?(?![\w.}])/g) ?? [];
}

describe('model registry', () => {
  it('declares every fact under one name only, so binding the SQL never lets one shadow another', () => {
    const names = allFacts.map(([name]) => name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(Object.keys(modelSqlValues())).toHaveLength(names.length);
  });

  it('holds probabilities in 0..1, hop priors that sum to 1, and category risks in 0..100', () => {
    for (const name of ['prior', 'fee_other', 'min_reported', 'cluster_decay', 'pool_tagged_confidence', 'pool_untagged_confidence', 'wait_quantile'] as const) {
      expect(DEFAULT_PARAMS[name], name).toBeGreaterThanOrEqual(0);
      expect(DEFAULT_PARAMS[name], name).toBeLessThanOrEqual(1);
    }
    const priors = Object.entries(LINK_PARAMS).filter(([name]) => name.startsWith('hop_prior_')).map(([, f]) => f.value);
    expect(priors).toHaveLength(4);
    expect(priors.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (const c of LABEL_CATEGORIES) expect(c.risk, c.name).toSatisfy((r: number) => Number.isInteger(r) && r >= 0 && r <= 100);
    expect(new Set(LABEL_CATEGORIES.map((c) => c.name)).size).toBe(LABEL_CATEGORIES.length);
  });

  it('binds every {{name}} of the analysis SQL to a registry value (the run gives its height, time, model digest and the heights it recomputes from)', () => {
    const values = { ...modelSqlValues(), as_of_height: 1, now: 1, model_digest: 1, relink_from: 1, recount_from: 1, rewindow_from: 1, new_from: 1 };
    for (const { file, sql } of analysisSql) expect(() => bindSql(sql, values), file).not.toThrow();
  });

  it('refuses to bind a placeholder it has no number for', () => {
    expect(() => bindSql('SELECT {{nope}}', modelSqlValues())).toThrow(/numeric value for \{\{nope\}\}/);
  });

  it('leaves only structural numbers as literals in the analysis SQL: every model number comes from the registry', () => {
    // Rounding digits, DECIMAL(18, 8), the 0..100 score scale, seconds per hour, the hop multipliers 1..3 and 0/1/2 arithmetic.
    const structural = new Set(['0', '0.0', '1', '1.0', '2', '3', '4', '6', '8', '18', '100', '3600.0']);
    for (const { file, sql } of analysisSql) {
      expect(numericLiterals(sql).filter((n) => !structural.has(n)), `${file}: put the number in src/domain/model.ts and write {{name}}`).toEqual([]);
    }
  });
});

describe('docs/methodology.md', () => {
  it('holds the constants table generated from the registry (fix: npm run docs:model, or paste the expected text)', () => {
    expect(modelFactsSection(METHODOLOGY)).toBe(renderModelFacts());
    expect(withModelFacts(METHODOLOGY)).toBe(METHODOLOGY);
  });

  it('states the registry value wherever its prose, or docs/amounts.md\'s, says "`name` = value"', () => {
    const values = modelSqlValues();
    const statedIn = (doc: string) => [...doc.matchAll(/`(\w+)`\s*=\s*(\d[\d,]*(?:\.\d+)?)/g)].filter(([, name]) => name! in values);
    expect(statedIn(METHODOLOGY).length).toBeGreaterThan(20);
    expect(statedIn(AMOUNTS_DOC).length).toBe(2);
    for (const [text, name, value] of [...statedIn(METHODOLOGY), ...statedIn(AMOUNTS_DOC)]) {
      expect(Number(value!.replace(/,/g, '')), text).toBe(values[name!]);
    }
  });
});

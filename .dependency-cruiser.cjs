// `npm run lint` (dependency half): the layers of docs/architecture.md. Data flows
// chain → store → analysis → export → notify → serve; a stage may import the stages before it, never
// one after it (notify reads what the job published and the watchlist; nothing before it knows of it). DuckDB stays on the batch side: the router, the wallet client, the explorer page
// and what they share (api, domain) never reach it. test/layers.test.ts checks the same at run time.
const STAGES = ['chain', 'store', 'analysis', 'export', 'notify', 'serve'];

/** A stage never imports a later stage. */
const noLaterStage = STAGES.slice(0, -1).map((stage, i) => ({
  name: `no-upward-from-${stage}`,
  comment: `src/${stage} is before ${STAGES.slice(i + 1).join(', ')} in the data flow; it must not import them`,
  severity: 'error',
  from: { path: `^src/${stage}/` },
  to: { path: `^src/(${STAGES.slice(i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...noLaterStage,
    {
      name: 'serve-reads-only-the-release',
      comment: 'the router answers from release files: it imports none of the batch stages',
      severity: 'error',
      from: { path: '^src/serve/' },
      to: { path: '^src/(chain|store|analysis|export|notify)/' },
    },
    {
      name: 'no-duckdb-outside-batch',
      comment: 'the router, the mirror, the signing code, the wallet client, the explorer page and the shared api/domain code never load DuckDB, directly or through another module',
      severity: 'error',
      from: { path: '^src/(serve|domain|api|web|trust|mirror)/' },
      to: { path: '@duckdb/', reachable: true },
    },
    {
      name: 'mirror-copies-releases',
      comment: 'src/mirror (docs/mirror.md) publishes with the exporter\'s publish.ts and reads manifests with manifest-read.ts; it needs no batch stage before export, nor notify or serve',
      severity: 'error',
      from: { path: '^src/mirror/' },
      to: { path: '^src/(chain|store|analysis|notify|serve)/' },
    },
    {
      name: 'nothing-imports-the-mirror',
      comment: 'the mirror is a command of its own: only cli.ts starts it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(mirror/|cli\\.ts$)' },
      to: { path: '^src/mirror/' },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports no other src module',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'api-is-shared-shaping',
      comment: 'src/api shapes documents for export, serve and the page: it imports only domain (and the wallet package @pegscope/client)',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(api|domain)/' },
    },
    {
      name: 'web-imports-only-shared-code',
      comment: 'the explorer page (src/web) runs in a browser: it imports only api and domain (and @pegscope/client)',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/(web|api|domain)/' },
    },
    {
      name: 'no-command-modules-in-layers',
      comment: 'the commands (cli, bin, job, demo, sources, config-file) use the layers, never the other way round',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/(bin|cli|job|demo|sources|config-file)\\.ts$' },
    },
    {
      name: 'no-dev-dependencies-in-src',
      comment: 'an installed pegscope has no devDependencies; only the explorer page, bundled at build time, may use them',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'scripts-do-not-import-tests',
      comment: 'scripts (benchmarks, generators) share code through scripts/lib or src; test/ may import them, never the other way round',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'no import cycles, not even through type-only imports: a cycle hides which module depends on which',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every import resolves',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports count too: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};

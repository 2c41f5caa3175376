/**
 * Scout's tiers, lowest first (docs/layout.md draws them). A folder under lib/ may import its own
 * files, any folder of a lower tier, and, within its own tier, only the folders its tier's `within`
 * names: folders of one tier stand side by side unless the rule says one builds on another. So
 * dependencies point one way and no two folders can import each other in a loop.
 */
const TIERS = [
  {
    tier: 'platform', // what any server needs: config, logs, the store, HTTP
    folders: ['runtime', 'store', 'http'],
    within: { store: ['runtime'], http: ['runtime', 'store'] },
  },
  {
    tier: 'domain', // what Scout is about: pay, the query language, subscribers, postings (feeds), matching, email
    folders: ['pay', 'query', 'channels', 'subscribers', 'feeds', 'matching', 'mail'],
    within: {
      query: ['pay'],
      subscribers: ['pay', 'query', 'channels'],
      feeds: ['pay'],
      matching: ['pay', 'query', 'subscribers', 'feeds'],
      mail: ['pay', 'query', 'subscribers', 'feeds', 'matching'],
    },
  },
  {
    tier: 'ledger', // the store operations on what was decided and what happened: deliveries, near misses, feedback, runs
    folders: ['ledger'],
    within: {},
  },
  {
    tier: 'engine', // the work that sends: verdicts, the outbox, the claims
    folders: ['verdicts', 'outbox', 'messages', 'claims'],
    within: { messages: ['outbox'], claims: ['verdicts', 'outbox', 'messages'] },
  },
  {
    tier: 'surfaces', // what people see and do: preview, feedback, archive, subscriptions, ops views
    folders: ['preview', 'feedback', 'archive', 'subscriptions', 'ops'],
    within: { subscriptions: ['preview', 'feedback', 'archive'] },
  },
  {
    tier: 'cycle', // the cron run, design §3 top to bottom
    folders: ['cycle'],
    within: {},
  },
  {
    tier: 'entries', // where requests and the browser come in: the app's wiring, the ops page, the cron handler, the browser's script
    folders: ['wiring', 'admin', 'cron', 'client'],
    within: { admin: ['wiring'], cron: ['wiring'] },
  },
];

const ALL_FOLDERS = TIERS.flatMap((t) => t.folders);

/** What a folder may import: its own files, every folder of a lower tier, and what its tier lets it use. */
function allowedFor(folder) {
  const index = TIERS.findIndex((t) => t.folders.includes(folder));
  const lower = TIERS.slice(0, index).flatMap((t) => t.folders);
  return [...lower, folder, ...(TIERS[index].within[folder] ?? [])];
}

/**
 * What lib/client may import: files free of the server and of heavy libraries, which a test keeps
 * small (test/structure/client-bundle.test.ts), and the one library it runs in the browser.
 */
const CLIENT_SAFE = [
  '^lib/client/',
  '^lib/preview/(preview|preview-words)\\.ts$',
  '^lib/query/query-error-span\\.ts$',
  '^lib/subscribers/(default-time-zone|email-typo)\\.ts$',
  '^lib/subscriptions/(email-suggestion-words|resend-wait)\\.ts$',
  '^node_modules/@zootools/email-spell-checker/',
];

const folder = (names) => `^lib/(${names.join('|')})/`;

module.exports = {
  forbidden: [
    ...ALL_FOLDERS.map((name) => {
      const tier = TIERS.find((t) => t.folders.includes(name)).tier;
      const allowed = allowedFor(name);
      return {
        name: `${name}-imports-only-lower-tiers`,
        comment: `lib/${name} (${tier} tier) may import only lib/{${allowed.join(',')}}.`,
        severity: 'error',
        from: { path: folder([name]) },
        // Anything of ours it may not use: a higher tier, a neighbour its tier does not allow, an unlisted folder, app/, scripts/, test/.
        to: { path: '^(lib|app|scripts|test)/', pathNot: folder(allowed) },
      };
    }),
    {
      name: 'lib-folders-are-tiered',
      comment: 'Every folder under lib/ has a place in TIERS (.dependency-cruiser.cjs).',
      severity: 'error',
      from: { path: '^lib/', pathNot: folder(ALL_FOLDERS) },
      to: {},
    },
    {
      name: 'client-imports-only-browser-safe-modules',
      comment:
        'lib/client runs in the browser: it may import only CLIENT_SAFE (.dependency-cruiser.cjs), never the server, firebase-admin or node: modules.',
      severity: 'error',
      from: { path: '^lib/client/' },
      to: { pathNot: CLIENT_SAFE },
    },
    {
      name: 'scripts-never-import-tests',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-import-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'imports-resolve',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|\\.next)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};

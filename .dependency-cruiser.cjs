/**
 * Scout's layers, lowest first. A folder under lib/ may import its own files and the folders
 * before it in this list, never one after it: dependencies point one way, so no two folders can
 * import each other in a loop. README "Layout" says what each layer holds.
 */
const LAYERS = [
  'runtime', // config, logger, failpoints, shard
  'store', // Firestore client, errors, timestamps, guarded update, write groups, collection names
  'http', // request bodies, client address, origin checks, headers, rate limits, page shell
  'pay', // what a posting pays and what a subscriber asks: the kinds, the one parser, formatting, the minimum's rule
  'subscribers', // the subscriber model, link tokens, schemas
  'feeds',
  'ledger', // deliveries
  'mail',
  'matching',
  'preview', // what a profile being typed would have matched over the last week: the bounded read, the estimate, the panel
  'feedback', // "not a fit" from the email: feedback/ documents, counter-examples, the exclude suggestion
  'verdicts', // the optional AI verdict stage: config-built client, wire contract, answer checks
  'outbox', // rows, lease, dispatch, send rules
  'claims', // claim deliveries, flush due digests
  'ops', // run records, dashboards, retry, prune, history, resend
  'archive', // the subscriber's archive page and private Atom feed: reading what was sent, and their views
  'subscriptions', // signup, confirm, preferences, unsubscribe flows and their views
  'cycle', // run-cycle, preview, lock
  'wiring', // the app's dependencies, built once
  'admin', // request handlers
  'cron',
  'client', // code that runs in the browser (bundled into public/scout-forms.js); only CLIENT_SAFE below
];

/**
 * What lib/client may import: files free of the server and of heavy libraries, which a test keeps
 * small (test/structure/client-bundle.test.ts), and the one library it runs in the browser.
 */
const CLIENT_SAFE = [
  '^lib/client/',
  '^lib/preview/(preview|preview-words)\\.ts$',
  '^lib/subscribers/(default-time-zone|email-typo)\\.ts$',
  '^lib/subscriptions/(email-suggestion-words|resend-wait)\\.ts$',
  '^node_modules/@zootools/email-spell-checker/',
];

const folder = (names) => `^lib/(${names.join('|')})/`;

module.exports = {
  forbidden: [
    ...LAYERS.map((layer, index) => ({
      name: `${layer}-imports-only-lower-layers`,
      comment: `lib/${layer} may import only ${index === 0 ? 'itself' : `lib/{${LAYERS.slice(0, index).join(',')}}`}.`,
      severity: 'error',
      from: { path: folder([layer]) },
      // Anything of ours that is not this layer or one below it: a higher layer, an unlisted folder, app/, scripts/, test/.
      to: { path: '^(lib|app|scripts|test)/', pathNot: folder(LAYERS.slice(0, index + 1)) },
    })),
    {
      name: 'lib-folders-are-layered',
      comment: 'Every folder under lib/ has a place in LAYERS (.dependency-cruiser.cjs).',
      severity: 'error',
      from: { path: '^lib/', pathNot: folder(LAYERS) },
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

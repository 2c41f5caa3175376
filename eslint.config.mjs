import js from '@eslint/js';
import nextPlugin from '@next/eslint-plugin-next';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The rules that keep `any` out; turned off only where there is nothing typed to narrow to. */
const anyAllowed = {
  '@typescript-eslint/no-explicit-any': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
  '@typescript-eslint/no-unsafe-argument': 'off',
};

export default defineConfig(
  // Build output, local state and generated files: nobody writes them by hand.
  // public/scout-forms.js is lib/client bundled (scripts/build-client.ts): its source is linted, not the bundle.
  globalIgnores(['.next/', '.next-*/', 'out/', 'coverage/', '.scout/', 'next-env.d.ts', 'public/scout-forms.js']),
  // A rule that is wrong for Scout is turned off here, with its reason, never by a comment in the code.
  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' } },

  js.configs.recommended,
  {
    rules: {
      // Scout matches control characters on purpose: it strips them from feed text and refuses them in links.
      'no-control-regex': 'off',
      // Scout's classes of invisible characters list each code point alone; a joiner among them joins nothing.
      'no-misleading-character-class': 'off',
    },
  },

  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore names what is dropped on purpose: a field left out of a rest copy, a callback's unused argument.
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }],
      // From the strict set: a promise returned unawaited inside try escapes its catch and finally.
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      // An async function without await is how a fake keeps an async interface and turns its throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // A new major's deprecations are found here, before the release that removes them.
      '@typescript-eslint/no-deprecated': 'error',
    },
  },

  {
    files: ['test/**'],
    rules: {
      // Tests read raw Firestore documents and JSON bodies (typed any) to assert on them: the expect() is the check.
      ...anyAllowed,
    },
  },
  {
    files: ['lib/verdicts/ask-verdicts.ts'],
    rules: {
      // max_tokens is what OpenAI-compatible servers (Ollama, vLLM) read; OpenAI deprecated it only for its o-series models.
      '@typescript-eslint/no-deprecated': 'off',
    },
  },
  {
    files: ['scripts/bench/scaling.ts'],
    rules: {
      // vega-lite's title `anchor` is read as String.prototype.anchor, since a title may also be a string.
      '@typescript-eslint/no-deprecated': 'off',
    },
  },
  {
    files: ['lib/feeds/source-adapter.ts'],
    rules: {
      // AnySourceAdapter erases each adapter's params type for the registry; unknown cannot, as attribution takes them.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['scripts/bench/firestore-counter.ts'],
    rules: {
      // It patches @google-cloud/firestore's private prototypes, which have no types to narrow to.
      ...anyAllowed,
    },
  },

  {
    files: ['**/*.tsx'],
    extends: [reactHooks.configs.flat.recommended],
  },

  {
    files: ['app/**/*.{ts,tsx}', 'proxy.ts', 'instrumentation.ts'],
    extends: [nextPlugin.configs.recommended, nextPlugin.configs['core-web-vitals']],
    rules: {
      // Every page is a route handler's, linking as plain HTML; none needs client-side navigation.
      '@next/next/no-html-link-for-pages': 'off',
    },
  },

  // Sizes a reader can hold in mind: a file of lib/ under 400 lines (every line counted), a function
  // under 80 lines of code (blank lines and comments not counted: a why is never the reason to split).
  {
    files: ['lib/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },

  // Code that runs in the browser (bundled into public/scout-forms.js).
  {
    files: ['lib/client/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['**/*.{cjs,mjs}'],
    languageOptions: { globals: globals.node },
  },
);

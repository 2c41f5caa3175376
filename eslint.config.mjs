import js from '@eslint/js';
import nextPlugin from '@next/eslint-plugin-next';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Build output, local state and generated files: nobody writes them by hand.
  globalIgnores(['.next/', '.next-*/', 'out/', 'coverage/', '.scout/', 'next-env.d.ts']),

  js.configs.recommended,

  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },

  {
    files: ['**/*.tsx'],
    extends: [reactHooks.configs.flat.recommended],
  },

  {
    files: ['app/**/*.{ts,tsx}', 'proxy.ts', 'instrumentation.ts'],
    extends: [nextPlugin.configs.recommended, nextPlugin.configs['core-web-vitals']],
  },

  // The pages' form script is served as written: a plain browser script, no modules, no build.
  {
    files: ['public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
  {
    files: ['**/*.{cjs,mjs}'],
    languageOptions: { globals: globals.node },
  },
);

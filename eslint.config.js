// Lint rules that keep the house layout honest (see ARCHITECTURE.md "Layout").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const serverOrApp = ['**/app/**', '**/server/**', '../app/*', '../server/*'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'assembly/build/**', 'bench/results/**', 'test-results/**', 'playwright-report/**', '.vellum/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/app/**/*.{ts,tsx}', 'src/workers/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // The engine is framework-agnostic: no React, no DOM globals, no server or app code.
    files: ['src/engine/**/*.ts'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['react', 'react-dom', 'zustand', 'fastify'].map((name) => ({ name, message: 'src/engine must not depend on UI or server frameworks.' })),
        patterns: [{ group: serverOrApp, message: 'src/engine must not import src/app or src/server.' }],
      }],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'localStorage', 'HTMLElement', 'HTMLCanvasElement'],
    },
  },
  {
    files: ['src/server/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/app/**', '../app/*'], message: 'The server never imports the SPA.' },
        { group: ['**/engine', '**/engine/**'], message: 'The server never imports the editor engine; share through src/contract (RLE: src/contract/rle.ts).' },
      ] }],
    },
  },
  {
    files: ['src/app/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/server/**'], message: 'The SPA never imports server code; share through src/contract.' },
        { group: ['**/engine/*', '!**/engine/index'], message: 'The SPA reaches the engine through src/engine/index.ts only.' },
      ] }],
    },
  },
  {
    // Small rooms (issue 16): functions up to 150 code lines, files up to 600. Tests are exempt.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
    },
  },
);

// Lint rules that keep the house layout honest (see ARCHITECTURE.md "Layout").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import path from 'node:path';

const serverOrApp = ['**/app/**', '**/server/**', '../app/*', '../server/*'];

// What no server file imports: the SPA and the editor engine.
const serverImportRules = [
  { group: ['**/app/**', '../app/*'], message: 'The server never imports the SPA.' },
  { group: ['**/engine', '**/engine/**'], message: 'The server never imports the editor engine; share through src/contract (RLE: src/contract/rle.ts).' },
];

// Functions over 100 code lines (counted as max-lines-per-function counts them: no blank or
// comment-only lines, IIFEs skipped) carry a comment just above them saying why they are long
// (issue 31 §4). "Just above": the comment ends on the line before the statement, property or
// method that starts on the function's first line.
const WHY_LONG_LINES = 100;
const whyLong = {
  meta: { type: 'suggestion', schema: [], messages: { why: '{{name}} has {{lines}} code lines (over {{max}}): split it, or say why it is long in a comment just above it.' } },
  create(context) {
    const source = context.sourceCode;
    const commentOnly = new Set();
    for (const c of source.getAllComments()) {
      const before = source.getTokenBefore(c), after = source.getTokenAfter(c);
      const start = c.loc.start.line + (before && before.loc.end.line === c.loc.start.line ? 1 : 0);
      const end = c.loc.end.line - (after && after.loc.start.line === c.loc.end.line ? 1 : 0);
      for (let line = start; line <= end; line++) commentOnly.add(line);
    }
    const check = (fn) => {
      if (fn.parent?.type === 'CallExpression' && fn.parent.callee === fn) return;
      let lines = 0;
      for (let i = fn.loc.start.line; i <= fn.loc.end.line; i++) if (!commentOnly.has(i) && /\S/.test(source.lines[i - 1])) lines++;
      if (lines <= WHY_LONG_LINES) return;
      let top = fn;
      while (top.parent && top.parent.type !== 'Program' && top.parent.loc.start.line === fn.loc.start.line) top = top.parent;
      const above = source.getCommentsBefore(top).at(-1);
      if (above && above.loc.end.line >= top.loc.start.line - 1) return;
      context.report({ node: fn, loc: fn.loc.start, messageId: 'why', data: { name: fn.id?.name ?? fn.parent.id?.name ?? fn.parent.key?.name ?? 'a function', lines, max: WHY_LONG_LINES } });
    };
    return { FunctionDeclaration: check, FunctionExpression: check, ArrowFunctionExpression: check };
  },
};

// A page never imports another page (issue 31 §2): what two pages share lives in src/app/components,
// stores, api, sync or lib. A file in src/app/pages/<a>/ may not import from src/app/pages/<b>/.
const pageOf = (file) => /[\\/]src[\\/]app[\\/]pages[\\/]([^\\/]+)[\\/]/.exec(file)?.[1] ?? null;
const noOtherPage = {
  meta: { type: 'problem', schema: [], messages: { page: 'pages/{{from}} imports pages/{{to}}: move what they share to src/app/components, stores, api, sync or lib (src/app/README.md).' } },
  create(context) {
    const from = pageOf(context.filename);
    if (!from) return {};
    const check = (node) => {
      const spec = node.source?.type === 'Literal' ? node.source.value : null;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = pageOf(path.resolve(path.dirname(context.filename), spec) + '/');
      if (to && to !== from) context.report({ node: node.source, messageId: 'page', data: { from, to } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

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
    rules: { 'no-restricted-imports': ['error', { patterns: serverImportRules }] },
  },
  {
    // http/ is the server's outermost layer (issue 31 §4): routes and the guard call services, auth
    // and live; nothing there calls back into http/. (A later block replaces the rule's options,
    // so the server's own patterns are repeated.)
    files: ['src/server/services/**/*.ts', 'src/server/auth/**/*.ts', 'src/server/live/**/*.ts', 'src/server/jobs/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ...serverImportRules,
        { regex: '^(\\.\\.?/)+(.*/)?http(/.*)?$', message: 'services/, auth/, live/ and jobs/ never import src/server/http (the outermost layer): errors are ../errors.ts, the caller ../services/caller.ts.' },
      ] }],
    },
  },
  {
    // auth/ is identity below the services (they read its types and tokens); who a credential is,
    // with API keys and deactivated accounts, is services/caller.ts. Repeats the two blocks above.
    files: ['src/server/auth/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ...serverImportRules,
        { regex: '^(\\.\\.?/)+(.*/)?http(/.*)?$', message: 'auth/ never imports src/server/http.' },
        { regex: '^(\\.\\.?/)+(.*/)?services(/.*)?$', message: 'auth/ never imports src/server/services: services build on auth (who a credential is: ../services/caller.ts).' },
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
    // The editor session is framework-free (issue 31 §2; src/app/README.md "May import"): no React,
    // no page or component, and of the stores only the toasts and the roles' words. (A later block
    // replaces the rule's options, so the SPA's own patterns are repeated.)
    files: ['src/app/editor-session/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['react', 'react-dom', 'zustand', '@tanstack/react-query'].map((name) => ({ name, message: 'src/app/editor-session is framework-free: the screen reads it through pages/annotate/hooks.' })),
        patterns: [
          { group: ['**/server/**'], message: 'The SPA never imports server code; share through src/contract.' },
          { group: ['**/engine/*', '!**/engine/index'], message: 'The SPA reaches the engine through src/engine/index.ts only.' },
          { group: ['**/pages/**', '**/components/**', '**/layout/**'], message: 'src/app/editor-session never imports a page, a component or the layout.' },
          { group: ['**/stores/*', '!**/stores/toast', '!**/stores/roles'], message: 'src/app/editor-session reads the role through a RoleSource (./access.ts), not the React-bound stores.' },
        ],
      }],
    },
  },
  {
    // Small rooms (issue 16): functions up to 150 code lines, files up to 600. Tests are exempt.
    // assembly/ is AssemblyScript in .ts files, which the TypeScript parser reads (issue 31 §4).
    files: ['src/**/*.{ts,tsx}', 'assembly/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'assembly/**/*.ts', 'bench/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}'],
    plugins: { vellum: { rules: { 'why-long': whyLong } } },
    rules: { 'vellum/why-long': 'error' },
  },
  {
    files: ['src/app/pages/**/*.{ts,tsx}'],
    plugins: { pages: { rules: { 'no-other-page': noOtherPage } } },
    rules: { 'pages/no-other-page': 'error' },
  },
);

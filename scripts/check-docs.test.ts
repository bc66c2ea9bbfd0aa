// check:docs on small fixture trees: each rule fails when its fixture breaks it, and passes on
// the same tree without the fault.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDocs, type DocProblem } from './check-docs';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A repository in a temporary folder: path -> content. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-docs-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
}

const brief = (problems: DocProblem[]): string[] => problems.map((p) => `${p.rule} ${p.file}: ${p.message}`);

/** A tree that passes every rule; each test breaks one thing in it. */
const GOOD: Record<string, string> = {
  'README.md': '# Fixture\n\nCode in `src/`, the map in `docs/map.md`, see [the map](docs/map.md).\n',
  'docs/map.md': '# Map\n\n`src/lib/a.ts` adds; `b.ts` too; output under `images/<folder>/<stem>.txt`, tests `src/**/*.test.ts`.\n',
  'src/lib/README.md': '# lib\n\n| file | what |\n|---|---|\n| `a.ts` | a |\n| `b.ts` | b |\n| `tools/` | one folder per tool |\n\nWrites `labels/` and `ImageSets/Main/default.txt`.\n',
  'src/lib/a.ts': 'export const a = 1;\n',
  'src/lib/a.test.ts': 'test file\n',
  'src/lib/b.ts': 'export const b = 2;\n',
  'src/lib/tools/box/index.ts': 'export {};\n',
  'src/lib/tools/README.md': '# tools\n\n`box/` draws boxes.\n',
};

describe('check:docs', () => {
  it('passes a tree whose docs name what exists and whose files are named', () => {
    expect(brief(checkDocs(tree(GOOD)))).toEqual([]);
  });

  it('fails on a backticked repository path that does not exist, in a README or in docs/', () => {
    const root = tree({
      ...GOOD,
      'src/lib/README.md': `${GOOD['src/lib/README.md']}\nSee \`src/lib/gone.ts\` and \`tools/pen/\`.\n`,
      'docs/map.md': `${GOOD['docs/map.md']}\nThe old \`renamed.ts\` and \`src/old/\`.\n`,
    });
    expect(brief(checkDocs(root))).toEqual([
      'path docs/map.md: `renamed.ts` does not exist',
      'path docs/map.md: `src/old/` does not exist',
      'path src/lib/README.md: `src/lib/gone.ts` does not exist',
      'path src/lib/README.md: `tools/pen/` does not exist',
    ]);
  });

  it('reads the docs in folders under docs/ too, paths and links alike', () => {
    const root = tree({
      ...GOOD,
      'docs/perf/render.md': 'Part of [the map](../map.md), see [gone](../gone.md); bench `src/lib/a.ts` and `src/lib/c.ts`.\n',
    });
    expect(brief(checkDocs(root))).toEqual([
      'path docs/perf/render.md: `src/lib/c.ts` does not exist',
      'link docs/perf/render.md: link to ../gone.md points nowhere',
    ]);
  });

  it('does not take an emptied folder for one that exists (git keeps no empty folders)', () => {
    const root = tree({ ...GOOD, 'src/lib/README.md': `${GOOD['src/lib/README.md']}\nThe old \`src/lib/moved/\`.\n` });
    fs.mkdirSync(path.join(root, 'src/lib/moved'));
    expect(brief(checkDocs(root))).toEqual(['path src/lib/README.md: `src/lib/moved/` does not exist']);
  });

  it('fails on a relative link that points nowhere', () => {
    const root = tree({ ...GOOD, 'README.md': `${GOOD['README.md']}\n[gone](docs/gone.md)\n` });
    expect(brief(checkDocs(root))).toEqual(['link README.md: link to docs/gone.md points nowhere']);
  });

  it('fails on a folder of 5 source files without a README, not counting test files', () => {
    const five = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [`src/many/${n}.ts`, 'export {};\n']));
    const named = { 'README.md': `${GOOD['README.md']}\n\`src/many/\`: a.ts b.ts c.ts d.ts e.ts\n` };
    const withFive = tree({ ...GOOD, ...five, ...named });
    expect(brief(checkDocs(withFive))).toEqual(['readme src/many/: 5 source files and no README.md']);

    const fourAndATest = { ...five, 'src/many/e.test.ts': '' };
    delete (fourAndATest as Record<string, string>)['src/many/e.ts'];
    expect(brief(checkDocs(tree({ ...GOOD, ...fourAndATest, ...named })))).toEqual([]);
  });

  it('fails on a source file its nearest README does not name; test files are exempt', () => {
    const root = tree({ ...GOOD, 'src/lib/c.ts': 'export {};\n', 'src/lib/c.test.ts': '', 'src/lib/tools/pen/index.ts': '' });
    expect(brief(checkDocs(root))).toEqual([
      'named src/lib/c.ts: not named in src/lib/README.md',
      'named src/lib/tools/pen/index.ts: not named in src/lib/tools/README.md',
    ]);
  });

  it('fails on a top-level README longer than 300 lines', () => {
    const long = `${GOOD['README.md']}${'more\n'.repeat(300)}`;
    expect(brief(checkDocs(tree({ ...GOOD, 'README.md': long })))).toEqual(['size README.md: 303 lines, more than 300: move manuals to docs/']);
    const fits = `${GOOD['README.md']}${'more\n'.repeat(297)}`;
    expect(brief(checkDocs(tree({ ...GOOD, 'README.md': fits })))).toEqual([]);
  });

  it('takes a file as named only by a whole name, not inside a longer one', () => {
    const root = tree({ ...GOOD, 'src/lib/ops.ts': '', 'src/lib/README.md': `${GOOD['src/lib/README.md']}\n\`wasm-ops.ts\` is elsewhere.\n` });
    expect(brief(checkDocs(root)).filter((p) => p.startsWith('named'))).toEqual([
      'named src/lib/ops.ts: not named in src/lib/README.md',
    ]);
  });
});

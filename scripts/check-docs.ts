// `npm run check:docs` (issue 31 §1): the docs name what exists, and what exists is named.
// Rules (each problem is printed, and any problem fails the run):
//   path    a backticked repository path in docs/ (any depth) or a README.md does not exist;
//   link    a relative Markdown link in those files points nowhere;
//   readme  a folder under src/ or bench/ with 5 or more source files has no README.md;
//   named   a source file under src/, tests/, bench/, assembly/ or scripts/ is not named in its
//           nearest README.md (the closest folder above it, itself included, that has one);
//   size    the top-level README.md is longer than README_MAX_LINES (the manuals live in docs/).
// Test files (*.test.ts, *.spec.ts) count for neither `readme` nor `named`: each sits beside the
// module it tests or in a folder whose README says what its tests cover, and a list of every
// test file would only repeat `ls`. The rules are explained in scripts/README.md.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type DocRule = 'path' | 'link' | 'readme' | 'named' | 'size';
export interface DocProblem {
  rule: DocRule;
  /** The file (or folder) at fault, relative to the repository root. */
  file: string;
  message: string;
}

/** Folders a backticked path may start at to be read from the repository root. */
export const TOP_LEVEL_FOLDERS = ['src', 'tests', 'bench', 'docs', 'assembly', 'scripts', 'public', '.ci'];
/** The top-level README says what a newcomer needs and links the manuals (issue 31). */
export const README_MAX_LINES = 300;
/** Where every folder of 5 or more source files needs a README. */
const README_ROOTS = ['src', 'bench'];
/** Where every source file must be named in its nearest README. */
const NAMED_ROOTS = ['src', 'tests', 'bench', 'assembly', 'scripts'];
/** Not part of the repository: build output, dependencies, local data (as .gitignore). */
const SKIPPED = new Set(['node_modules', 'dist', '.git', '.vellum', '.tmp', 'test-results', 'playwright-report', 'assembly/build', 'bench/results']);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const TEST = /\.(test|spec)\.(ts|tsx|mts|js|mjs)$/;
/** A bare name with one of these endings is taken for a repository file; `data.yaml`, `README.txt` or a build chunk such as `index.css` are not. */
const CHECKED_EXTENSION = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|sql)$/;
const MIME_TYPE = /^(image|application|text|multipart|audio|video|font)\//;
const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '.mjs', '.js', '/index.ts', '/index.tsx'];

/** Every file and folder of the repository, as relative POSIX paths. */
export interface RepoTree {
  files: string[];
  dirs: Set<string>;
  entries: Set<string>;
}

/** The repository's files, and its folders as git sees them: those holding a file (an emptied folder left on disk is gone). */
export function readTree(root: string): RepoTree {
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (SKIPPED.has(child) || SKIPPED.has(entry.name)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) files.push(child);
    }
  };
  walk('');
  files.sort();
  const dirs = new Set<string>(['']);
  for (const file of files) for (let dir = dirOf(file); dir && !dirs.has(dir); dir = dirOf(dir)) dirs.add(dir);
  return { files, dirs, entries: new Set([...files, ...dirs]) };
}

const isReadme = (file: string): boolean => path.posix.basename(file) === 'README.md';
const dirOf = (file: string): string => {
  const dir = path.posix.dirname(file);
  return dir === '.' ? '' : dir;
};
const join = (dir: string, rel: string): string => path.posix.normalize(dir ? `${dir}/${rel}` : rel).replace(/\/$/, '');

/** The Markdown files whose paths are checked: every .md under docs/ and every README.md. */
export function documentFiles(tree: RepoTree): string[] {
  return tree.files.filter((f) => isReadme(f) || /^docs\/.+\.md$/.test(f));
}

/** The text of inline code spans, fenced blocks left out. */
export function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
}

/**
 * The path a code span names, or null when it is not taken for a repository path: anything with
 * spaces, placeholders (`<format>`), globs, URLs, ellipses or a colon, and MIME types. `#anchor`
 * and `:line` endings are dropped.
 */
export function pathOfSpan(span: string): string | null {
  const text = span.trim().replace(/#[\w.-]*$/, '').replace(/:\d+(-\d+)?$/, '');
  if (!text || /[\s<>*{}$|?=@,:;'"()[\]\\…]|\.\.\.|^\/|^~/.test(text)) return null;
  if (MIME_TYPE.test(text) || /^\.{1,2}$/.test(text)) return null;
  // A bare name is taken for a file only with a checked extension and a stem (`.ts` is an extension).
  if (!text.includes('/') && (!CHECKED_EXTENSION.test(text) || text.startsWith('.'))) return null;
  return text;
}

function exists(tree: RepoTree, rel: string): boolean {
  if (rel.startsWith('..')) return false;
  return RESOLVE_SUFFIXES.some((suffix) => tree.entries.has(rel + suffix));
}

/** Whether some path under `dir` (the whole repository for '') ends with `/name`. */
function existsBelow(tree: RepoTree, dir: string, name: string): boolean {
  const clean = name.replace(/\/$/, '');
  const prefix = dir ? `${dir}/` : '';
  for (const entry of tree.entries) {
    if (!entry.startsWith(prefix)) continue;
    for (const suffix of RESOLVE_SUFFIXES) {
      if (suffix && !entry.endsWith(suffix)) continue;
      const stem = suffix ? entry.slice(0, -suffix.length) : entry;
      if (stem === clean || stem.endsWith(`/${clean}`)) return true;
    }
  }
  return false;
}

/** Build output, local data and dependencies: named by docs, never in the repository. */
function isGenerated(root: string, named: string): boolean {
  const parts = named.split('/');
  if ([...SKIPPED].some((s) => named === s || named.startsWith(`${s}/`))) return true;
  // A package path such as `tsx/esm/api` or `@scope/name/sub`.
  const pkg = parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return named.includes('/') && fs.existsSync(path.join(root, 'node_modules', pkg));
}

/**
 * Whether a path named in `doc` exists. From a top-level folder it is read from the root. Any
 * other path whose first folder exists nowhere in the repository (`labels/`, a dataset's layout)
 * is not taken for one of its paths. In a README the rest is read from the README's folder or one
 * above it (`services/tiles.ts` in src/server/jobs), or from a folder below it (a README may name
 * `builtin/index.ts` in the listing of `segmentation/`). In docs/ a bare file name, or a path
 * whose first folder exists somewhere, must end some repository path. Build output, local data,
 * package paths and paths leaving the repository are not checked.
 */
export function namedPathExists(tree: RepoTree, root: string, doc: string, span: string): boolean {
  const named = span.replace(/^\.\//, '').replace(/\/$/, '');
  if (isGenerated(root, named)) return true;
  const first = named.split('/')[0];
  if (TOP_LEVEL_FOLDERS.includes(first)) return exists(tree, named);
  const isFolderName = (d: string): boolean => d === first || d.endsWith(`/${first}`);
  // `labels/` or `ImageSets/Main/default.txt`: a dataset's layout, not a path of this repository.
  const namesNoFolder = span.includes('/') && first !== '..' && ![...tree.dirs].some(isFolderName);
  if (isReadme(doc) && !doc.startsWith('docs/')) {
    if (namesNoFolder) return true;
    const dir = dirOf(doc);
    if (join(dir, named).startsWith('..') || isGenerated(root, join(dir, named))) return true;
    for (let up = dir; ; up = dirOf(up)) {
      if (exists(tree, join(up, named))) return true;
      if (!up) break;
    }
    return existsBelow(tree, dir, named);
  }
  if (span.includes('/') ? !namesNoFolder : CHECKED_EXTENSION.test(named)) {
    return existsBelow(tree, '', named);
  }
  return true;
}

function checkDocument(tree: RepoTree, root: string, doc: string, text: string): DocProblem[] {
  const problems: DocProblem[] = [];
  const seen = new Set<string>();
  for (const span of codeSpans(text)) {
    const named = pathOfSpan(span);
    if (!named || seen.has(named)) continue;
    seen.add(named);
    if (!namedPathExists(tree, root, doc, named)) problems.push({ rule: 'path', file: doc, message: `\`${named}\` does not exist` });
  }
  const prose = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].replace(/#.*$/, '');
    if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
    if (!exists(tree, join(dirOf(doc), decodeURI(target)))) {
      problems.push({ rule: 'link', file: doc, message: `link to ${m[1]} points nowhere` });
    }
  }
  return problems;
}

const underRoots = (file: string, roots: string[]): boolean => roots.some((r) => file.startsWith(`${r}/`));
const isCountedSource = (file: string): boolean => SOURCE.test(file) && !TEST.test(file);

/** The README.md nearest above `file`: its own folder's, else the closest ancestor's (the root's last). */
export function nearestReadme(tree: RepoTree, file: string): string | null {
  let dir = dirOf(file);
  for (;;) {
    const readme = dir ? `${dir}/README.md` : 'README.md';
    if (tree.entries.has(readme)) return readme;
    if (!dir) return null;
    dir = dirOf(dir);
  }
}

function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`(^|[^\\w./-])${escaped}(?![\\w-]|\\.\\w)`).test(text);
}

/**
 * Whether a README names a file: its path from the README's folder (with or without the
 * extension), or its file name; an `index.ts` is also named by its folder's path (`routes/live/`).
 */
export function readmeNames(readmeText: string, readmeDir: string, file: string): boolean {
  const rel = readmeDir ? file.slice(readmeDir.length + 1) : file;
  const base = path.posix.basename(file);
  const names = [rel, rel.replace(SOURCE, ''), base, file];
  if (/^index\.(ts|tsx|js|mjs)$/.test(base) && rel.includes('/')) names.push(dirOf(rel), `${dirOf(rel)}/`);
  return names.some((n) => mentions(readmeText, n));
}

export function checkDocs(root: string): DocProblem[] {
  const tree = readTree(root);
  const read = (rel: string): string => fs.readFileSync(path.join(root, rel), 'utf8');
  const problems: DocProblem[] = [];
  for (const doc of documentFiles(tree)) problems.push(...checkDocument(tree, root, doc, read(doc)));
  if (tree.entries.has('README.md')) {
    const lines = read('README.md').split('\n').length - 1;
    if (lines > README_MAX_LINES) problems.push({ rule: 'size', file: 'README.md', message: `${lines} lines, more than ${README_MAX_LINES}: move manuals to docs/` });
  }

  const sourceCount = new Map<string, number>();
  for (const file of tree.files) {
    if (isCountedSource(file)) sourceCount.set(dirOf(file), (sourceCount.get(dirOf(file)) ?? 0) + 1);
  }
  for (const [dir, count] of [...sourceCount].sort()) {
    if (count >= 5 && underRoots(`${dir}/`, README_ROOTS) && !tree.entries.has(`${dir}/README.md`)) {
      problems.push({ rule: 'readme', file: `${dir}/`, message: `${count} source files and no README.md` });
    }
  }

  const readmeTexts = new Map<string, string>();
  for (const file of tree.files) {
    if (!isCountedSource(file) || !underRoots(file, NAMED_ROOTS)) continue;
    const readme = nearestReadme(tree, file);
    if (!readme) continue;
    if (!readmeTexts.has(readme)) readmeTexts.set(readme, read(readme));
    if (!readmeNames(readmeTexts.get(readme)!, dirOf(readme), file)) {
      problems.push({ rule: 'named', file, message: `not named in ${readme}` });
    }
  }
  return problems;
}

export function formatProblems(problems: DocProblem[]): string {
  return problems.map((p) => `${p.rule.padEnd(6)} ${p.file}: ${p.message}`).join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const problems = checkDocs(root);
  if (problems.length) {
    console.error(`${formatProblems(problems)}\n\ncheck:docs: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('check:docs: the docs name what exists, and every source file is named');
}

// Streamed XML for the VOC and CVAT readers (saxes: strict, no DTD processing, so no external or
// expanding entities). Only the elements asked for are built, as small trees, one at a time: a CVAT
// file with 100k shapes is never a DOM, only its current <image>.
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { MAX_IMPORT_NESTING } from '../../contract/imports';
import { ImportInputError, type ImportArchive } from './reader';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (not its children's). */
  text: string;
  /** 1-based line of its start tag. */
  line: number;
}

export interface XmlStreamOptions {
  /** Names of the elements to build and yield (outside one another; those inside come as its children). */
  collect: ReadonlySet<string>;
  /** Called with the root element's name before anything is yielded; may throw to refuse the file. */
  root?: (name: string) => void;
}

/** Yields each collected element of the entry when its end tag is read. Malformed XML: ImportInputError with the file and line. */
export async function* xmlElements(archive: ImportArchive, file: string, options: XmlStreamOptions): AsyncGenerator<XmlElement> {
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  let ready: XmlElement[] = [];
  let sawRoot = false;
  let failure: Error | null = null;
  parser.on('error', (err) => {
    const at = /^(\d+):(\d+): /.exec(err.message);
    failure ??= new ImportInputError(`${file}: XML error at line ${at ? at[1] : parser.line}: ${err.message.slice(at ? at[0].length : 0)}`);
  });
  let depth = 0;
  parser.on('opentag', (tag) => {
    depth += 1;
    if (depth > MAX_IMPORT_NESTING) failure ??= new ImportInputError(`${file}: XML nested more than ${MAX_IMPORT_NESTING} levels deep at line ${parser.line}; at most ${MAX_IMPORT_NESTING} are read`);
    if (failure) return;
    if (!sawRoot) {
      sawRoot = true;
      try {
        options.root?.(tag.name);
      } catch (err) {
        failure ??= err as Error;
      }
    }
    if (stack.length === 0 && !options.collect.has(tag.name)) return;
    const el: XmlElement = { name: tag.name, attrs: tag.attributes as Record<string, string>, children: [], text: '', line: parser.line };
    stack[stack.length - 1]?.children.push(el);
    stack.push(el);
  });
  const onText = (t: string) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    depth -= 1;
    if (failure) return;
    const el = stack.pop();
    if (el && stack.length === 0) ready.push(el);
  });
  const source = await archive.open(file);
  const decoder = new StringDecoder('utf8');
  let first = true;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let text = decoder.write(chunk);
      if (first && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      parser.write(text);
      if (failure) throw failure;
      const out = ready;
      ready = [];
      yield* out;
    }
    parser.write(decoder.end());
    parser.close();
    if (failure) throw failure;
    if (!sawRoot) throw new ImportInputError(`${file}: XML error: the file has no root element`);
    yield* ready;
  } finally {
    source.destroy();
  }
}

/** The first child of that name. */
export function child(el: XmlElement, name: string): XmlElement | undefined {
  return el.children.find((c) => c.name === name);
}

/** The trimmed text of the first child of that name ('' when absent). */
export function childText(el: XmlElement, name: string): string {
  return child(el, name)?.text.trim() ?? '';
}

/** An attribute value as a scalar: 'true' / 'false' as booleans, numbers written canonically as numbers, else the text. */
export function scalarOf(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) && String(n) === text ? n : text;
}

// Whether an uploaded SVG is an inert drawing. The file is parsed as XML (saxes: strict, namespace
// aware, no DTD processing) and every element, attribute and URL is checked against an allow-list of
// the static drawing subset of SVG. Anything outside it is refused, never cleaned: a sanitiser that
// misses one trick serves script, a refusal costs the user one re-export ("plain SVG").
//
// Decisions (issue 15, item 3):
// - Animation is refused entirely (set, animate, animateTransform, animateMotion, animateColor,
//   discard, mpath): animating href or an event attribute is how script got in, and a dataset image
//   has no use for it. Scripting, embedding and fonts (script, foreignObject, iframe, feImage,
//   font-face, cursor, ...) are not on the list either.
// - References stay inside the file: every href / xlink:href is '#fragment', except <image>, which
//   takes data:image/(png|jpeg|gif|webp) only. Values are checked after the parser decodes entities
//   (&#9; &#x0A; &amp; ...), with ASCII whitespace and control characters removed and lower-cased.
// - CSS is allowed (<style>, style="", presentation attributes) once CSS escapes and comments are
//   decoded, provided it has no url() other than url(#fragment), no @import, no image-set()/src()/
//   image() (they take plain strings as URLs), no expression(), behavior or -moz-binding.
// - Only the W3C SVG 1.0/1.1 DOCTYPE that editors write is allowed; any internal subset (entity
//   declarations: XXE, billion laughs) or other DTD is refused. Undefined entities do not parse.
// - Files that do not parse as namespace-well-formed XML, or whose root is not <svg> in the SVG
//   namespace, are refused.
import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** The static drawing subset of SVG. */
const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'symbol', 'use', 'switch', 'a', 'view',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan', 'textPath',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
  'image', 'title', 'desc', 'metadata', 'style',
  // Filter primitives: pixel operations on the drawing itself (feImage, which loads a reference, is left out).
  'filter', 'feBlend', 'feColorMatrix', 'feComponentTransfer', 'feFuncR', 'feFuncG', 'feFuncB', 'feFuncA',
  'feComposite', 'feConvolveMatrix', 'feDiffuseLighting', 'feDisplacementMap', 'feDistantLight', 'feDropShadow',
  'feFlood', 'feGaussianBlur', 'feMerge', 'feMergeNode', 'feMorphology', 'feOffset', 'fePointLight',
  'feSpecularLighting', 'feSpotLight', 'feTile', 'feTurbulence',
]);

const ANIMATION = new Set(['set', 'animate', 'animateTransform', 'animateMotion', 'animateColor', 'discard', 'mpath']);

/** Attributes without a namespace: geometry, presentation, gradients, text, filters, and a few inert ones. */
const ATTRIBUTES = new Set([
  // core and structure
  'id', 'class', 'style', 'lang', 'tabindex', 'role', 'version', 'baseProfile', 'viewBox', 'preserveAspectRatio',
  'zoomAndPan', 'x', 'y', 'width', 'height', 'transform', 'href', 'systemLanguage', 'focusable',
  'contentScriptType', 'contentStyleType', 'enable-background', 'type', 'media', 'title', 'viewTarget',
  // shapes
  'd', 'pathLength', 'points', 'cx', 'cy', 'r', 'rx', 'ry', 'x1', 'y1', 'x2', 'y2', 'fr', 'fx', 'fy',
  // gradients, patterns, clipping, masks, markers
  'offset', 'gradientUnits', 'gradientTransform', 'spreadMethod', 'patternUnits', 'patternContentUnits',
  'patternTransform', 'clipPathUnits', 'maskUnits', 'maskContentUnits', 'markerUnits', 'markerWidth',
  'markerHeight', 'refX', 'refY', 'orient',
  // text
  'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust', 'startOffset', 'method', 'spacing', 'side',
  // filters
  'filterUnits', 'primitiveUnits', 'filterRes', 'in', 'in2', 'result', 'mode', 'values', 'operator', 'k1', 'k2',
  'k3', 'k4', 'order', 'kernelMatrix', 'divisor', 'bias', 'targetX', 'targetY', 'edgeMode', 'kernelUnitLength',
  'preserveAlpha', 'surfaceScale', 'diffuseConstant', 'specularConstant', 'specularExponent', 'scale',
  'xChannelSelector', 'yChannelSelector', 'stdDeviation', 'radius', 'baseFrequency', 'numOctaves', 'seed',
  'stitchTiles', 'azimuth', 'elevation', 'z', 'pointsAtX', 'pointsAtY', 'pointsAtZ', 'limitingConeAngle',
  'tableValues', 'slope', 'intercept', 'amplitude', 'exponent',
  // presentation attributes
  'alignment-baseline', 'baseline-shift', 'clip', 'clip-path', 'clip-rule', 'color', 'color-interpolation',
  'color-interpolation-filters', 'color-profile', 'color-rendering', 'direction', 'display', 'dominant-baseline',
  'fill', 'fill-opacity', 'fill-rule', 'filter', 'flood-color', 'flood-opacity', 'font', 'font-family', 'font-size',
  'font-size-adjust', 'font-stretch', 'font-style', 'font-variant', 'font-weight', 'glyph-orientation-horizontal',
  'glyph-orientation-vertical', 'image-rendering', 'isolation', 'kerning', 'letter-spacing', 'lighting-color',
  'marker', 'marker-start', 'marker-mid', 'marker-end', 'mask', 'mask-type', 'mix-blend-mode', 'opacity', 'overflow',
  'paint-order', 'shape-rendering', 'solid-color', 'solid-opacity', 'stop-color', 'stop-opacity', 'stroke',
  'stroke-dasharray', 'stroke-dashoffset', 'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit',
  'stroke-opacity', 'stroke-width', 'text-anchor', 'text-decoration', 'text-rendering', 'transform-box',
  'transform-origin', 'unicode-bidi', 'vector-effect', 'visibility', 'word-spacing', 'writing-mode',
]);

/** Namespaces of editor and metadata vocabularies: browsers ignore their elements and attributes. */
const INERT_NAMESPACES = [
  'http://www.inkscape.org/namespaces/inkscape',
  'http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd',
  'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  'http://www.w3.org/2000/01/rdf-schema#',
  'http://purl.org/dc/',
  'http://creativecommons.org/ns#',
  'http://web.resource.org/cc/',
  'http://ns.adobe.com/',
  'adobe:ns:meta/',
  'http://www.bohemiancoding.com/sketch/ns',
  'http://www.serif.com/',
  'http://www.figma.com/figma/ns',
  'http://schemas.microsoft.com/visio/2003/SVGExtensions/',
];
const isInertNamespace = (uri: string) => INERT_NAMESPACES.some((ns) => uri === ns || (ns.endsWith('/') && uri.startsWith(ns)));

/** The DOCTYPE SVG editors write (public SVG 1.0/1.1 DTDs, no internal subset). */
const STANDARD_DOCTYPE = /^\s*svg\s+PUBLIC\s+(["'])-\/\/W3C\/\/DTD SVG 1\.[01](?: (?:Basic|Tiny))?\/\/EN\1\s+(["'])http:\/\/www\.w3\.org\/(?:TR\/2001\/REC-SVG-20010904\/DTD\/svg10\.dtd|Graphics\/SVG\/1\.1\/DTD\/svg11(?:-(?:basic|tiny))?\.dtd)\2\s*$/;

class Refused extends Error {}

/** A URL as a browser would read it: ASCII whitespace and controls removed, lower-cased. */
export function normalizeUrl(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
}

const RASTER_DATA_URL = /^data:image\/(?:png|jpeg|jpg|gif|webp)[;,]/;

function checkReference(value: string, element: string, attr: string): void {
  const url = normalizeUrl(value);
  if (url.startsWith('#') && url.length > 1) return;
  if (element === 'image' && RASTER_DATA_URL.test(url)) return;
  if (/^(?:java|vb)script:/.test(url)) throw new Refused(`<${element} ${attr}> holds a ${url.startsWith('v') ? 'vbscript' : 'javascript'}: URL`);
  const allowed = element === 'image' ? "a data:image/png, jpeg, gif or webp URL" : "a '#fragment' inside the file";
  throw new Refused(`<${element} ${attr}> must be ${allowed} (it is "${value.slice(0, 80)}")`);
}

/** CSS with escapes (\72 or \r) resolved and comments removed, as the CSS tokenizer would see it. */
export function decodeCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '')
    .replace(/\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?/g, (_m, hex: string) => {
      const cp = parseInt(hex, 16);
      return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? '\ufffd' : String.fromCodePoint(cp);
    })
    .replace(/\\\r\n|\\[\n\r\f]/g, '')
    .replace(/\\(.)/g, '$1');
}

/** CSS (a style sheet, a style attribute or a presentation attribute value) refers to nothing outside the file. */
export function checkCss(css: string, where: string): void {
  const text = decodeCss(css);
  const flat = normalizeUrl(text);
  if (flat.includes('@import')) throw new Refused(`${where} imports another style sheet (@import)`);
  if (/(?<![\w-])(?:-webkit-)?(?:image-set|image|src|element|cross-fade)\(/i.test(text)) throw new Refused(`${where} uses a CSS function that loads images`);
  if (/expression\(|behavior:|-moz-binding|(?:java|vb)script:/.test(flat)) throw new Refused(`${where} has scriptable CSS`);
  // url( with whitespace and controls removed; the argument, quoted or not, must be a #fragment.
  for (const m of flat.matchAll(/url\(/g)) {
    const rest = flat.slice(m.index + 4);
    const arg = rest.replace(/^["']/, '');
    if (!arg.startsWith('#') || arg.length < 2) throw new Refused(`${where} has url() pointing outside the file ("${rest.slice(0, 60)}")`);
  }
}

function checkElement(tag: SaxesTagNS, isRoot: boolean): void {
  const { uri, local } = tag;
  if (uri === SVG_NS) {
    if (isRoot && local !== 'svg') throw new Refused(`its root element is <${local}>, not <svg>`);
    if (ANIMATION.has(local)) throw new Refused(`it contains an animation element (<${local}>); animated SVG is not accepted`);
    if (!ELEMENTS.has(local)) throw new Refused(`it contains a <${tag.name}> element, which is not part of static SVG drawing`);
  } else {
    if (isRoot) throw new Refused(`its root element is not <svg> in the SVG namespace (${uri || 'no namespace'})`);
    if (!uri || !isInertNamespace(uri)) throw new Refused(`it contains a <${tag.name}> element from ${uri ? `the namespace ${uri}` : 'no namespace'}`);
  }
  for (const attr of Object.values(tag.attributes) as SaxesAttributeNS[]) checkAttribute(tag, attr);
}

function checkAttribute(tag: SaxesTagNS, attr: SaxesAttributeNS): void {
  const element = tag.local;
  const where = `<${tag.name} ${attr.name}>`;
  if (attr.prefix === 'xmlns' || (attr.prefix === '' && attr.local === 'xmlns') || attr.uri === XMLNS_NS) return; // namespace declarations
  if (/^on/i.test(attr.local)) throw new Refused(`it contains an event handler attribute (${attr.name})`);
  if (attr.uri === XLINK_NS) {
    if (attr.local === 'href') return checkReference(attr.value, element, attr.name);
    if (attr.local === 'title') return;
    throw new Refused(`it uses ${attr.name}, which is not accepted`);
  }
  if (attr.uri === XML_NS) {
    if (attr.local === 'space' || attr.local === 'lang') return;
    throw new Refused(`it uses ${attr.name}, which is not accepted`);
  }
  if (attr.uri) {
    if (isInertNamespace(attr.uri)) return;
    throw new Refused(`it uses the attribute ${attr.name} from the namespace ${attr.uri}`);
  }
  if (tag.uri !== SVG_NS) {
    // An attribute without a namespace on an editor's or metadata element: inert in browsers, but never a way to a URL.
    if (attr.local === 'href' || attr.local === 'src') checkReference(attr.value, element, attr.name);
    return;
  }
  if (!ATTRIBUTES.has(attr.local)) throw new Refused(`it uses the attribute ${attr.name} on <${tag.name}>, which is not accepted`);
  if (attr.local === 'href') return checkReference(attr.value, element, attr.name);
  if (element === 'style' && attr.local === 'type' && !/^\s*text\/css\s*$/i.test(attr.value)) throw new Refused(`its <style> has type "${attr.value.slice(0, 40)}"`);
  // Presentation attributes are CSS values; url() in any attribute is held to the CSS rules.
  checkCss(attr.value, where);
}

/**
 * Why an SVG is refused, or null when it is an inert drawing (see the decisions at the top of this file).
 */
export function svgProblem(text: string): string | null {
  const parser = new SaxesParser({ xmlns: true });
  let sawRoot = false;
  let styleDepth = 0;
  let css = '';
  parser.on('doctype', (doctype) => {
    if (!STANDARD_DOCTYPE.test(doctype)) throw new Refused('it has a DOCTYPE other than the standard SVG one (entity declarations and external DTDs are not accepted)');
  });
  parser.on('processinginstruction', (pi) => {
    // Adobe's XMP packets are inert; an xml-stylesheet (or anything else) is not accepted.
    if (pi.target !== 'xpacket') throw new Refused(`it has a <?${pi.target}?> processing instruction`);
  });
  parser.on('opentag', (tag) => {
    checkElement(tag as SaxesTagNS, !sawRoot);
    sawRoot = true;
    if (styleDepth > 0) throw new Refused('its <style> contains elements');
    if (tag.uri === SVG_NS && tag.local === 'style') {
      styleDepth = 1;
      css = '';
    }
  });
  const onText = (t: string) => {
    if (styleDepth > 0) css += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    if (styleDepth > 0 && tag.uri === SVG_NS && tag.local === 'style') {
      styleDepth = 0;
      checkCss(css, 'its <style> element');
    }
  });
  try {
    parser.write(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).close();
  } catch (err) {
    if (err instanceof Refused) return err.message;
    return `it is not well-formed XML (${(err as Error).message.slice(0, 160)})`;
  }
  if (!sawRoot) return 'it has no root element';
  return null;
}

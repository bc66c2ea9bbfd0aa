// Issue 15, item 3: SVG that could run script is refused at register (415 unsafe_svg) by an allow-list
// of elements and attributes checked on the parsed XML, and an SVG is never served inline from a
// storage origin: S3 signed GET URLs carry response-content-disposition: attachment, the local
// driver's object route sends a sandbox CSP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, startServer, type TestServer } from './harness';
import { createProject, putUpload, register, uploadImage, type Member } from '../fixtures/datasets';
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3Server, type S3TestServer } from './storage-s3-server';
import { svgProblem } from '../../src/server/services/svg-safety';

const NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
const svg = (body: string, attrs = '') => `<svg ${NS} width="40" height="30"${attrs}>${body}</svg>`;

/** Attacks, each with a name; every one must answer 415 unsafe_svg. */
const UNSAFE: [string, string][] = [
  // The two reproductions of issue 15.
  ['set href to java&#9;script:', svg('<a><set attributeName="href" to="java&#9;script:alert(document.domain)"/><text>x</text></a>')],
  ['animate values java&#10;script:', svg('<a><animate attributeName="href" values="java&#10;script:alert(document.domain)"/><text>x</text></a>')],
  ['href with &#x0A; inside javascript:', svg('<a href="java&#x0A;script:alert(1)"><rect width="5" height="5"/></a>')],
  ['href with &#x09; and leading spaces', svg('<a href=" &#x09; javascript:alert(1)"><rect width="5" height="5"/></a>')],
  ['href with a carriage return and DEL', svg('<a href="&#x7f;java&#13;script:alert(1)"><rect width="5" height="5"/></a>')],
  ['href with entity-encoded letters', svg('<a href="&#106;&#97;vascript&#58;alert(1)"><rect width="5" height="5"/></a>')],
  ['xlink:href javascript:', svg('<a xlink:href="javascript:alert(1)"><rect width="5" height="5"/></a>')],
  ['uppercase JAVASCRIPT:', svg('<a href="JAVASCRIPT:alert(1)"><rect width="5" height="5"/></a>')],
  ['vbscript:', svg('<a href="vbscript:msgbox(1)"><rect width="5" height="5"/></a>')],
  ['data:text/html', svg('<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="><rect width="5" height="5"/></a>')],
  ['a link to an external page', svg('<a href="https://evil.example/"><rect width="5" height="5"/></a>')],
  ['use with an external href', svg('<use href="https://evil.example/sprite.svg#x"/>')],
  ['use with a relative file href', svg('<use xlink:href="other.svg#x"/>')],
  ['image with an external href', svg('<image href="//evil.example/x.png" width="5" height="5"/>')],
  ['image with data:image/svg+xml', svg('<image href="data:image/svg+xml;base64,PHN2Zy8+" width="5" height="5"/>')],
  ['script', svg('<script>alert(1)</script>')],
  ['namespaced script', '<s:svg xmlns:s="http://www.w3.org/2000/svg" width="4" height="4"><s:script>alert(1)</s:script></s:svg>'],
  ['foreignObject', svg('<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>')],
  ['iframe', svg('<iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example/"/>')],
  ['onload', svg('<rect width="5" height="5"/>', ' onload="alert(1)"')],
  ['OnClick in upper case', svg('<rect width="5" height="5" OnClick="alert(1)"/>')],
  ['animate onclick', svg('<rect width="5" height="5"><animate attributeName="onclick" to="alert(1)" begin="0s"/></rect>')],
  ['set on xlink:href', svg('<a><set attributeName="xlink:href" to="https://evil.example/"/><text>x</text></a>')],
  ['animateMotion', svg('<rect width="5" height="5"><animateMotion path="M0,0 L10,10" dur="1s"/></rect>')],
  ['discard', svg('<rect width="5" height="5"><discard begin="1s"/></rect>')],
  ['style with url(javascript:)', svg('<style>rect { fill: url(javascript:alert(1)) }</style><rect width="5" height="5"/>')],
  ['style with @import', svg('<style>@import "https://evil.example/x.css";</style><rect width="5" height="5"/>')],
  ['style attribute with external url()', svg('<rect width="5" height="5" style="fill: url(https://evil.example/x.svg#p)"/>')],
  ['style attribute with escaped url', svg('<rect width="5" height="5" style="background: u\\72l(https://evil.example/)"/>')],
  ['fill with external url()', svg('<rect width="5" height="5" fill="url(https://evil.example/x.svg#p)"/>')],
  ['DOCTYPE with ENTITY', '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "boom">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>'],
  ['DOCTYPE with a SYSTEM file', '<?xml version="1.0"?><!DOCTYPE svg SYSTEM "file:///etc/passwd"><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'],
  ['standard DOCTYPE plus an internal subset', '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'],
  ['CSS image-set() with a plain string', svg('<rect width="5" height="5" style="fill: image-set(&quot;https://evil.example/x.png&quot; 1x)"/>')],
  ['animateTransform (animation is refused)', svg('<rect width="5" height="5"><animateTransform attributeName="transform" type="rotate" from="0" to="90" dur="1s"/></rect>')],
  ['xlink:href bound to another prefix', '<svg xmlns="http://www.w3.org/2000/svg" xmlns:q="http://www.w3.org/1999/xlink" width="4" height="4"><a q:href="javascript:alert(1)"><rect width="2" height="2"/></a></svg>'],
  ['xml:base', svg('<g xml:base="https://evil.example/"><rect width="5" height="5"/></g>')],
  ['xml-stylesheet', '<?xml version="1.0"?><?xml-stylesheet href="https://evil.example/x.css"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'],
  ['unparsable XML', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"></svg>'],
  ['undefined entity', svg('<text>&nbsp;</text>')],
  ['an element outside the allow-list', svg('<handler type="application/ecmascript">alert(1)</handler>')],
  ['an HTML element in the SVG namespace', svg('<div>x</div>')],
  ['root that is not svg in the SVG namespace', '<svg xmlns="http://www.w3.org/1999/xhtml" width="10" height="10"/>'],
  ['feImage with an external href', svg('<filter id="f"><feImage href="https://evil.example/x.png"/></filter><rect width="5" height="5" filter="url(#f)"/>')],
];

/** Inert drawings that must still be accepted, with a thumbnail. */
const INERT: [string, string][] = [
  ['gradients', svg('<defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="#00f" stop-opacity=".5"/></linearGradient><radialGradient id="r"><stop offset="0%" style="stop-color: yellow"/></radialGradient></defs><rect width="40" height="30" fill="url(#g)"/><circle cx="20" cy="15" r="8" fill="url(&quot;#r&quot;)"/>')],
  ['text', svg('<text x="2" y="20" font-family="sans-serif" font-size="12" fill="black">Hello &amp; &#233;t&#xE9;<tspan dy="2" font-weight="bold">!</tspan></text><title>A title</title><desc>A description</desc>')],
  ['use #local', svg('<defs><symbol id="s" viewBox="0 0 10 10"><path d="M0 0L10 10"/></symbol></defs><use href="#s" width="10" height="10"/><use xlink:href="#s" x="10" width="10" height="10"/>')],
  ['data:image/png image', svg('<image width="4" height="4" preserveAspectRatio="none" xlink:href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="/>')],
  ['paths and shapes', svg('<g transform="translate(1 1)" stroke="black" stroke-width="0.5" fill="none"><path d="M1 1 L30 20 Z"/><rect x="1" y="1" width="5" height="5" rx="1"/><ellipse cx="10" cy="10" rx="3" ry="2"/><line x1="0" y1="0" x2="5" y2="5"/><polyline points="0,0 5,5 10,0"/><polygon points="0,0 5,5 10,0" fill-rule="evenodd"/></g>')],
  ['clip, mask, pattern, marker, filter', svg('<defs><clipPath id="c"><rect width="10" height="10"/></clipPath><mask id="m"><rect width="10" height="10" fill="white"/></mask><pattern id="p" width="4" height="4" patternUnits="userSpaceOnUse"><rect width="2" height="2"/></pattern><marker id="k" markerWidth="3" markerHeight="3" refX="1" refY="1"><circle cx="1" cy="1" r="1"/></marker><filter id="f"><feGaussianBlur stdDeviation="1"/><feOffset dx="1" dy="1"/></filter></defs><rect width="20" height="20" fill="url(#p)" clip-path="url(#c)" mask="url(#m)" filter="url(#f)"/><path d="M0 0L9 9" marker-end="url(#k)" stroke="red"/>')],
  ['style without urls, prolog and comment', `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- drawn by hand -->\n${svg('<style>.a { fill: #123456; stroke-width: 2px } </style><rect class="a" width="5" height="5" style="opacity: 0.5"/><metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>', ' version="1.1" viewBox="0 0 40 30" xml:space="preserve"')}`],
  ['the standard SVG 1.1 DOCTYPE', `<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n${svg('<rect width="5" height="5"/>')}`],
  ['Inkscape metadata namespaces', `<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" width="40" height="30" inkscape:version="1.3"><sodipodi:namedview id="nv" pagecolor="#ffffff"/><g inkscape:label="Layer 1" inkscape:groupmode="layer"><rect width="5" height="5"/></g></svg>`],
];

describe('svgProblem (the check itself)', () => {
  it.each(UNSAFE)('refuses: %s', (_name, text) => {
    expect(svgProblem(text)).toEqual(expect.any(String));
  });
  it.each(INERT)('accepts: %s', (_name, text) => {
    expect(svgProblem(text)).toBeNull();
  });
});

describe('register refuses unsafe SVG and accepts inert SVG (local storage)', () => {
  let server: TestServer;
  let owner: Member;
  let project: { id: string };
  beforeAll(async () => {
    server = await sharedServer();
    owner = await onboardedUser(server);
    project = await createProject(server, owner);
  });

  it('answers 415 unsafe_svg for every attack', async () => {
    for (const [i, [name, text]] of UNSAFE.entries()) {
      const file = `attack${i}.svg`;
      await putUpload(server, owner, project.id, file, Buffer.from(text));
      const res = await register(server, owner, project.id, file);
      expect(res.status, name).toBe(415);
      expect(res.body.code, name).toBe('unsafe_svg');
    }
  }, 120_000);

  it('accepts every inert drawing, with a thumbnail; the original is served with a sandbox CSP', async () => {
    for (const [i, [name, text]] of INERT.entries()) {
      const image = await uploadImage(server, owner, project.id, `inert${i}.svg`, Buffer.from(text));
      expect(image, name).toMatchObject({ mime_type: 'image/svg+xml', image_width: 40, image_height: 30 });
      expect(image.thumbnail_path, name).toBeTruthy();
    }
    const [first] = INERT;
    const image = await uploadImage(server, owner, project.id, 'served.svg', Buffer.from(first[1]));
    const signed = await api(server.url, 'GET', `/api/v1/images/${image.id}/signed-url?org_id=${owner.org.id}`, { token: owner.token });
    expect(signed.status).toBe(200);
    const res = await fetch(signed.body.signed_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('content-security-policy')).toMatch(/\bsandbox\b/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const thumb = await api(server.url, 'GET', `/api/v1/images/${image.id}/signed-url?variant=thumbnail&org_id=${owner.org.id}`, { token: owner.token });
    const thumbRes = await fetch(thumb.body.signed_url);
    expect(thumbRes.headers.get('content-type')).toBe('image/webp');
  }, 120_000);
});

describe('S3: an SVG is never served inline from the bucket origin', () => {
  let s3: S3TestServer;
  let server: TestServer;
  let owner: Member;
  let project: { id: string };
  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = S3_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = S3_SECRET_KEY;
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    s3 = await startS3Server({ buckets: ['vellum-svg'] });
    server = await startServer({ STORAGE_URL: `s3://vellum-svg?endpoint=${s3.endpoint}&region=us-east-1&forcePathStyle=true` });
    owner = await onboardedUser(server);
    project = await createProject(server, owner);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await s3?.stop();
  });

  it('a signed GET URL of an SVG answers Content-Disposition: attachment as image/svg+xml; other images stay inline', async () => {
    const image = await uploadImage(server, owner, project.id, 'drawing.svg', Buffer.from(INERT[0][1]));
    expect(image.thumbnail_path).toBeTruthy();
    const signed = await api(server.url, 'GET', `/api/v1/images/${image.id}/signed-url?org_id=${owner.org.id}`, { token: owner.token });
    expect(signed.status).toBe(200);
    const url: string = signed.body.signed_url;
    expect(url.startsWith(s3.endpoint)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment\b/);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toBe(INERT[0][1]);
    // The thumbnail (a WebP rendition) is what lists show; it is served as usual.
    const thumb = await api(server.url, 'GET', `/api/v1/images/${image.id}/signed-url?variant=thumbnail&org_id=${owner.org.id}`, { token: owner.token });
    const thumbRes = await fetch(thumb.body.signed_url);
    expect(thumbRes.status).toBe(200);
    expect(thumbRes.headers.get('content-type')).toBe('image/webp');
    expect(thumbRes.headers.get('content-disposition')).toBeNull();
    // Driver level: any key ending in .svg, in any case, is signed the same way.
    const driver = server.built.ctx.storage;
    const bucket = owner.org.gcs_bucket_name;
    await driver.put(bucket, 'loose/UPPER.SVG', Buffer.from(INERT[0][1]), { contentType: 'image/svg+xml' });
    const upper = await fetch((await driver.signedDownloadUrl(bucket, 'loose/UPPER.SVG', { expiresInSeconds: 60 })).url);
    expect(upper.headers.get('content-disposition')).toMatch(/^attachment\b/);
    expect(upper.headers.get('content-type')).toBe('image/svg+xml');
  }, 120_000);

  it('the issue 15 reproductions are refused on S3 too, and leave nothing readable', async () => {
    for (const [i, [name, text]] of UNSAFE.slice(0, 2).entries()) {
      await putUpload(server, owner, project.id, `repro${i}.svg`, Buffer.from(text));
      const res = await register(server, owner, project.id, `repro${i}.svg`);
      expect(res.status, name).toBe(415);
      expect(res.body.code, name).toBe('unsafe_svg');
    }
  }, 60_000);
});

// GLSL (WebGL 1 / GLSL ES 1.00, as regl speaks it). Camera: screen = image * scale + (x, y) in
// CSS px; clip space from the CSS viewport size. Colours are 0xRRGGBB packed in one float.
const common = `
precision highp float;
uniform vec3 u_cam;      // scale, x, y
uniform vec2 u_view;     // CSS px
uniform sampler2D u_state;
uniform vec2 u_stateSize;
vec4 toClip(vec2 screen) { return vec4(screen.x / u_view.x * 2.0 - 1.0, 1.0 - screen.y / u_view.y * 2.0, 0.0, 1.0); }
vec3 unpack(float c) {
  float r = floor(c / 65536.0);
  float g = floor((c - r * 65536.0) / 256.0);
  float b = c - r * 65536.0 - g * 256.0;
  return vec3(r, g, b) / 255.0;
}
// r: hidden, g: selected, b: hovered
vec4 stateOf(float slot) {
  if (slot < 0.0) return vec4(0.0);
  float x = mod(slot, u_stateSize.x);
  float y = floor(slot / u_stateSize.x);
  return texture2D(u_state, (vec2(x, y) + 0.5) / u_stateSize);
}
`;

/** Fill alpha by view state (hovered, selected, else 1 - transparency). */
const stateAlpha = `
uniform float u_alpha;       // 1 - transparency
uniform float u_selAlpha;    // 0x1A / 255
uniform float u_hoverAlpha;  // 0.1
float stateAlpha(vec4 st) { return st.b > 0.5 ? u_hoverAlpha : st.g > 0.5 ? u_selAlpha : u_alpha; }
`;

export const fillVert = `${common}${stateAlpha}
attribute vec2 a_pos;
attribute float a_color;
attribute float a_slot;
varying vec4 v_color;
void main() {
  vec4 st = stateOf(a_slot);
  // -2: drawing previews and the marquee; -3: Auto-Annotate's proposed mask (spec: blue fill)
  float a = a_slot < -2.5 ? 0.4 : a_slot < -1.5 ? 0.15 : stateAlpha(st);
  v_color = vec4(unpack(a_color) * a, a);
  gl_Position = st.r > 0.5 ? vec4(2.0, 2.0, 2.0, 1.0) : toClip(a_pos * u_cam.x + u_cam.yz);
}`;

export const lineVert = `${common}
attribute vec2 a_pos;
attribute vec2 a_off;
attribute float a_side;      // +-1 outline, +-2 polyline (at least u_polyHw), 0 square marker, 3 keypoint (round), 4 occluded skeleton point (round, dark centre), +-(8 + distance along the ring, image px) a dashed outline
attribute float a_color;
attribute float a_slot;
uniform float u_hw;          // half width of the coloured line, CSS px
uniform float u_polyHw;      // smallest half width of a polyline (it has no fill to show it)
uniform float u_halo;        // width of the dark halo band around it, CSS px
uniform float u_selScale;    // wider outline when selected
uniform float u_marker;      // marker (handle) radius, CSS px
uniform float u_kpR;         // keypoint dot radius, CSS px
uniform float u_round;       // 1: all markers of this draw are round (Auto-Annotate's points)
varying vec3 v_color;
varying vec2 v_local;        // px from the centre line / marker centre, at the quad's outer edge
varying float v_inner;       // px where the halo starts
varying float v_outer;       // px where the halo ends (the quad reaches half a px further, to smooth the edge)
varying float v_round;
varying float v_hollow;      // 1: an occluded skeleton point, its centre the halo's colour
varying highp float v_dash;  // a dashed outline: screen px along it; -1 otherwise
void main() {
  vec4 st = stateOf(a_slot);
  float side = abs(a_side);
  bool dashed = side > 7.5;
  v_dash = dashed ? (side - 8.0) * u_cam.x : -1.0;
  v_hollow = a_side > 3.5 && !dashed ? 1.0 : 0.0;
  float sel = st.g > 0.5 ? u_selScale : 1.0;
  float k = max(abs(a_off.x), abs(a_off.y));
  vec2 px;
  if (k > 2.0) {
    bool kp = a_side > 2.5;
    // a keypoint grows a little when selected or hovered, like a selected outline
    v_inner = kp ? u_kpR * (st.g > 0.5 || st.b > 0.5 ? 1.25 : 1.0) : u_marker;
    v_round = kp || u_round > 0.5 ? 1.0 : 0.0;
    v_outer = v_inner + u_halo;
    px = a_off / k * (v_outer + 0.5);
    v_local = px;
  } else {
    float hw = (side > 1.5 && !dashed ? max(u_hw, u_polyHw) : u_hw) * sel;
    v_inner = hw;
    v_outer = hw + u_halo;
    v_round = 0.0;
    px = a_off * (v_outer + 0.5);
    // the across-line coordinate: +-(outer + 0.5) on the two long edges
    v_local = vec2((v_outer + 0.5) * sign(a_side), 0.0);
  }
  v_color = unpack(a_color);
  gl_Position = st.r > 0.5 ? vec4(2.0, 2.0, 2.0, 1.0) : toClip(a_pos * u_cam.x + u_cam.yz + px);
}`;

export const lineFrag = `
precision mediump float;
uniform vec4 u_haloColor;     // premultiplied
varying vec3 v_color;
varying vec2 v_local;
varying float v_inner;
varying float v_outer;
varying float v_round;        // 1: round marker, else square (lines use only the x of v_local)
varying float v_hollow;
#ifdef GL_FRAGMENT_PRECISION_HIGH
varying highp float v_dash;
#else
varying float v_dash;
#endif
void main() {
  // a dashed outline (a model's pending prediction): 6 px dashes, 4 px gaps, halo and all
  if (v_dash >= 0.0 && mod(v_dash, 10.0) >= 6.0) discard;
  float d = v_round > 0.5 ? length(v_local) : max(abs(v_local.x), abs(v_local.y));
  float t = clamp(d - v_inner + 0.5, 0.0, 1.0);   // 1 px blend between line and halo
  float edge = clamp(v_outer + 0.5 - d, 0.0, 1.0); // coverage of the outer edge (no MSAA)
  // an occluded point is a ring: its inner half the halo's colour
  t = max(t, v_hollow * clamp(v_inner * 0.5 - d + 0.5, 0.0, 1.0));
  gl_FragColor = mix(vec4(v_color, 1.0), u_haloColor, t) * edge;
}`;

/**
 * Dots: a tiny shape (level of detail) as one point sprite over its bounds (one primitive where a
 * quad is two, and software WebGL pays per primitive). It also stands for the outline, so it stays
 * visible at any transparency; the sprite is square, the part outside the bounds is discarded.
 * A point is clipped whole when its centre leaves the view, so a dot across the view's edge is
 * drawn from a centre moved inside, with a sprite grown to reach its bounds.
 */
export const dotVert = `${common}
attribute vec2 a_pos;        // centre
attribute vec2 a_half;       // half width, half height (image px)
attribute float a_color;
attribute float a_slot;
uniform float u_alpha;
uniform float u_dpr;
uniform float u_inset;       // CSS px of the view's edges past the scissor (a fused band's grown viewport): a dot none of whose px falls inside is culled
varying vec4 v_color;
varying vec2 v_half;         // half extent, CSS px
varying vec2 v_off;          // the bounds' centre from the sprite's, CSS px
varying float v_size;        // sprite side, CSS px
void main() {
  vec4 st = stateOf(a_slot);
  float a = st.b > 0.5 ? 0.8 : st.g > 0.5 ? 1.0 : max(u_alpha, 0.6);
  v_color = vec4(unpack(a_color) * a, a);
  vec2 c = a_pos * u_cam.x + u_cam.yz;
  vec2 at = clamp(c, vec2(0.5), u_view - 0.5);
  v_half = max(a_half * u_cam.x, vec2(0.5));
  v_off = c - at;
  v_size = 2.0 * max(abs(v_off.x) + v_half.x, abs(v_off.y) + v_half.y);
  gl_PointSize = v_size * u_dpr;
  // hidden, or wholly outside the view: nothing to draw
  // or wholly outside the scissored part of the view (1 px to spare): it would be drawn and scissored away
  vec2 inner = c - clamp(c, vec2(u_inset + 0.5), u_view - u_inset - 0.5);
  bool cull = st.r > 0.5 || abs(v_off.x) > v_half.x + 0.5 || abs(v_off.y) > v_half.y + 0.5 || abs(inner.x) > v_half.x + 1.0 || abs(inner.y) > v_half.y + 1.0;
  gl_Position = cull ? vec4(2.0, 2.0, 2.0, 1.0) : toClip(at);
}`;

export const dotFrag = `
precision mediump float;
varying vec4 v_color;
varying vec2 v_half;
varying vec2 v_off;
varying float v_size;
void main() {
  vec2 q = (gl_PointCoord - 0.5) * v_size - v_off;
  if (abs(q.x) > v_half.x || abs(q.y) > v_half.y) discard;
  gl_FragColor = v_color;
}`;

/**
 * Compact polygons (level of detail for small shapes): unshared fill triangles whose vertices carry
 * distances (image px) to the triangle's ring edges; the outline and its dark halo are drawn
 * inside the fill from the smallest distance in CSS px, and the edge pixels are smoothed inward.
 */
export const compactVert = `${common}${stateAlpha}
attribute vec2 a_pos;
attribute float a_color;
attribute float a_slot;
attribute vec3 a_dist;
uniform float u_hw;
uniform float u_selScale;
varying vec3 v_color;
varying float v_fillA;
varying vec3 v_dist;
varying float v_line;
void main() {
  vec4 st = stateOf(a_slot);
  v_fillA = stateAlpha(st);
  v_line = 2.0 * u_hw * (st.g > 0.5 ? u_selScale : 1.0);
  v_color = unpack(a_color);
  // in CSS px, capped so no-edge sides (1e6) stay in mediump range
  v_dist = min(a_dist * u_cam.x, vec3(100.0));
  gl_Position = st.r > 0.5 ? vec4(2.0, 2.0, 2.0, 1.0) : toClip(a_pos * u_cam.x + u_cam.yz);
}`;

export const compactFrag = `
precision mediump float;
uniform vec4 u_haloColor;     // premultiplied
uniform float u_halo;
varying vec3 v_color;
varying float v_fillA;
varying vec3 v_dist;
varying float v_line;
void main() {
  float d = min(v_dist.x, min(v_dist.y, v_dist.z));
  vec4 line = vec4(v_color, 1.0);
  vec4 fill = vec4(v_color * v_fillA, v_fillA);
  vec4 c = mix(line, u_haloColor, clamp(d - v_line + 0.5, 0.0, 1.0));
  c = mix(c, fill, clamp(d - v_line - u_halo + 0.5, 0.0, 1.0));
  gl_FragColor = c * clamp(d + 0.5, 0.0, 1.0);
}`;

export const colorFrag = `
precision mediump float;
varying vec4 v_color;
void main() { gl_FragColor = v_color; }`;

/** A textured quad over an image-space rectangle (image tiles and masks). */
export const quadVert = `
precision highp float;
attribute vec2 a_uv;
uniform vec3 u_cam;
uniform vec2 u_view;
uniform vec4 u_rect;   // x, y, w, h in image px
uniform vec4 u_uv;     // the part of the texture drawn over it: u, v, width, height
varying vec2 v_uv;
void main() {
  v_uv = u_uv.xy + a_uv * u_uv.zw;
  vec2 s = (u_rect.xy + a_uv * u_rect.zw) * u_cam.x + u_cam.yz;
  gl_Position = vec4(s.x / u_view.x * 2.0 - 1.0, 1.0 - s.y / u_view.y * 2.0, 0.0, 1.0);
}`;

/** Impostors (impostors.ts): a cell's dots and compact polygons from an atlas slot, premultiplied. */
export const impostorVert = `
precision highp float;
attribute vec2 a_pos;  // image px
attribute vec2 a_uv;
uniform vec3 u_cam;
uniform vec2 u_view;
varying vec2 v_uv;
void main() {
  v_uv = a_uv;
  vec2 s = a_pos * u_cam.x + u_cam.yz;
  gl_Position = vec4(s.x / u_view.x * 2.0 - 1.0, 1.0 - s.y / u_view.y * 2.0, 0.0, 1.0);
}`;

/**
 * The image with the annotator's adjustments (display only; the stored image never changes):
 * gamma (c^(1/g)), then contrast about mid-grey, then brightness as a factor, as CSS filters do.
 */
export const imageFrag = `
precision mediump float;
uniform sampler2D u_tex;
uniform vec3 u_adjust;   // brightness, contrast, gamma (1, 1, 1: unchanged)
varying vec2 v_uv;
void main() {
  vec3 c = texture2D(u_tex, v_uv).rgb;
  c = pow(c, vec3(1.0 / u_adjust.z));
  c = (c - 0.5) * u_adjust.y + 0.5;
  gl_FragColor = vec4(clamp(c * u_adjust.x, 0.0, 1.0), 1.0);
}`;

/** Issue 35, the fused path (fused.ts): the shapes' texture (premultiplied) at this fragment, none outside it. */
const fusedSample = `
uniform sampler2D u_shapes;
uniform vec4 u_shapesAt;  // the fragment's texel: (gl_FragCoord.xy + xy) * zw
vec4 shapesHere() {
  vec2 st = (gl_FragCoord.xy + u_shapesAt.xy) * u_shapesAt.zw;
  vec2 inside = step(vec2(0.0), st) * step(st, vec2(1.0));
  return texture2D(u_shapes, st) * inside.x * inside.y;
}`;

/** The image's pass with the shapes' texture composited over it (one pass where there were two). */
export const imageFusedFrag = `
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
uniform sampler2D u_tex;
uniform vec3 u_adjust;
varying vec2 v_uv;
${fusedSample}
void main() {
  vec3 c = texture2D(u_tex, v_uv).rgb;
  c = pow(c, vec3(1.0 / u_adjust.z));
  c = (c - 0.5) * u_adjust.y + 0.5;
  vec4 s = shapesHere();
  gl_FragColor = vec4(s.rgb + clamp(c * u_adjust.x, 0.0, 1.0) * (1.0 - s.a), 1.0);
}`;

/** The shapes' texture alone (blended): where the view shows no image. */
export const shapesFrag = `
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
${fusedSample}
void main() { gl_FragColor = shapesHere(); }`;

/**
 * Masks: quads over their rects (grown on screen by the outline's halo), textured from a shared
 * atlas whose blocks are the column-major RLE decode (u: row y, v: column x). Filled in the class
 * colour with the slot's state alpha; an outline of u_lineW CSS px in the class colour at full
 * opacity along the inside of the mask's edge, and the dark halo just outside it, as polygons
 * have. Samples outside the mask's rect count as background (the atlas holds other masks there).
 */
export const maskVert = `${common}${stateAlpha}
attribute vec2 a_pos;        // rect corner, image px
attribute vec2 a_corner;     // -1 / +1 per axis: the way the quad grows for the halo; +-2: a dashed outline (a pending prediction)
attribute vec4 a_rect;       // x0, y0, x1, y1, image px
attribute vec4 a_uv;         // atlas (u, v) at the rect's top-left, then du per image px along y, dv per image px along x
attribute float a_color;
attribute float a_slot;
uniform float u_lineW;       // outline width, CSS px
uniform float u_halo;        // halo width, CSS px
uniform float u_selScale;
varying vec2 v_img;
varying vec4 v_rect;
varying vec4 v_uv;
varying vec3 v_color;
varying float v_a;
varying float v_line;        // outline width, image px
varying float v_halo;        // halo width, image px
varying float v_dashed;
void main() {
  vec4 st = stateOf(a_slot);
  v_a = stateAlpha(st);
  v_dashed = abs(a_corner.x) > 1.5 ? 1.0 : 0.0;
  float lw = u_lineW * (st.g > 0.5 ? u_selScale : 1.0);
  v_line = lw / u_cam.x;
  v_halo = u_halo / u_cam.x;
  v_img = a_pos + sign(a_corner) * (u_halo + 1.0) / u_cam.x;
  v_rect = a_rect;
  v_uv = a_uv;
  v_color = unpack(a_color);
  gl_Position = st.r > 0.5 ? vec4(2.0, 2.0, 2.0, 1.0) : toClip(v_img * u_cam.x + u_cam.yz);
}`;

export const maskFrag = `
precision highp float;
uniform sampler2D u_tex;
uniform vec4 u_haloColor;    // premultiplied
varying vec2 v_img;
varying vec4 v_rect;
varying vec4 v_uv;
varying vec3 v_color;
varying float v_a;
varying float v_line;
varying float v_halo;
bool fg(vec2 p) {
  if (p.x < v_rect.x || p.y < v_rect.y || p.x >= v_rect.z || p.y >= v_rect.w) return false;
  vec2 uv = v_uv.xy + vec2((p.y - v_rect.y) * v_uv.z, (p.x - v_rect.x) * v_uv.w);
  return texture2D(u_tex, uv).r > 0.5 / 255.0; // decoded values are 0 / 1
}
bool ring(vec2 p, float r, bool want) {
  float q = r * 0.7071;
  return fg(p + vec2(r, 0.0)) == want || fg(p - vec2(r, 0.0)) == want || fg(p + vec2(0.0, r)) == want || fg(p - vec2(0.0, r)) == want
    || fg(p + vec2(q, q)) == want || fg(p - vec2(q, q)) == want || fg(p + vec2(q, -q)) == want || fg(p - vec2(q, -q)) == want;
}
varying float v_dashed;
// A dashed outline's gap (6 px dashes, 4 px gaps as lines have): screen px along the edge, its
// direction told by which side of p the mask is at distance r (mostly vertical: along y).
bool dashGap(vec2 p, float r) {
  float nx = float(fg(p + vec2(r, 0.0))) - float(fg(p - vec2(r, 0.0)));
  float ny = float(fg(p + vec2(0.0, r))) - float(fg(p - vec2(0.0, r)));
  float along = abs(nx) > abs(ny) ? gl_FragCoord.y : gl_FragCoord.x;
  return mod(along, 10.0) >= 6.0;
}
void main() {
  if (fg(v_img)) {
    // near the edge (background within the outline's width): the outline
    bool edge = ring(v_img, v_line, false) && (v_dashed < 0.5 || !dashGap(v_img, v_line));
    gl_FragColor = edge ? vec4(v_color, 1.0) : vec4(v_color * v_a, v_a);
  } else {
    if (!ring(v_img, v_halo, true) || (v_dashed > 0.5 && dashGap(v_img, v_halo))) discard;
    gl_FragColor = u_haloColor;
  }
}`;

/** Class-name labels: screen-space quads (CSS px) textured from the label atlas (premultiplied). */
export const labelVert = `
precision highp float;
attribute vec2 a_pos;
attribute vec2 a_uv;
uniform vec2 u_view;
varying vec2 v_uv;
void main() {
  v_uv = a_uv;
  gl_Position = vec4(a_pos.x / u_view.x * 2.0 - 1.0, 1.0 - a_pos.y / u_view.y * 2.0, 0.0, 1.0);
}`;

export const labelFrag = `
precision mediump float;
uniform sampler2D u_tex;
varying vec2 v_uv;
void main() { gl_FragColor = texture2D(u_tex, v_uv); }`;

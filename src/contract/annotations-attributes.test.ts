import { describe, expect, it } from 'vitest';
import { attributesProblem, fittingAttributes, findAttributeProblem } from './annotations-attributes';
import { AttributeDefinition, CLASS_PALETTE, ProjectClass, ProjectClasses, defaultAttributes, deltaE2000, hexToLab, nextClassColor } from './projects';

const car = {
  name: 'car',
  type: 'box' as const,
  color: '#F07575',
  attributes: [
    { name: 'colour', kind: 'select' as const, options: ['red', 'blue'], default: 'red' },
    { name: 'occluded', kind: 'checkbox' as const },
    { name: 'doors', kind: 'number' as const, default: 4 },
    { name: 'plate', kind: 'text' as const },
  ],
};

describe('attribute definitions', () => {
  const bad = (def: unknown) => {
    const r = AttributeDefinition.safeParse(def);
    return r.success ? null : r.error.issues[0]!.message;
  };
  it('accepts the four kinds with fitting defaults', () => {
    for (const d of car.attributes) expect(bad(d)).toBeNull();
    expect(ProjectClass.safeParse(car).success).toBe(true);
  });
  it('refuses unknown kinds, selects without options or with repeated ones, options on other kinds, and defaults of the wrong kind', () => {
    expect(bad({ name: 'a', kind: 'radio' })).toMatch(/Invalid/);
    expect(bad({ name: 'a', kind: 'select' })).toBe('Attribute "a" is a select and needs at least one option');
    expect(bad({ name: 'a', kind: 'select', options: [] })).toBe('Attribute "a" is a select and needs at least one option');
    expect(bad({ name: 'a', kind: 'select', options: ['x', 'x'] })).toBe('Attribute "a" lists the option "x" twice');
    expect(bad({ name: 'a', kind: 'select', options: ['x'], default: 'y' })).toBe('Attribute "a": the default must be one of its options ("x")');
    expect(bad({ name: 'a', kind: 'number', options: ['1'] })).toBe('Attribute "a": only select attributes have options');
    expect(bad({ name: 'a', kind: 'number', default: '4' })).toBe('Attribute "a": the default must be a number');
    expect(bad({ name: 'a', kind: 'checkbox', default: 'yes' })).toBe('Attribute "a": the default must be true or false');
    expect(bad({ name: 'a', kind: 'text', default: 3 })).toBe('Attribute "a": the default must be text');
    expect(bad({ name: ' ', kind: 'text' })).toBe('Attribute name is required');
    expect(bad({ name: 'x'.repeat(101), kind: 'text' })).toBe('Attribute name must be at most 100 characters');
    expect(bad({ name: 'a', kind: 'text', extra: 1 })).toMatch(/Unrecognized key/);
  });
  it('refuses two attributes of one name in a class', () => {
    const r = ProjectClasses.safeParse([{ ...car, attributes: [...car.attributes, { name: 'Colour', kind: 'text' }] }]);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe('Attribute names must be unique ("Colour" appears twice)');
  });
  it('gives new shapes the defaults', () => {
    expect(defaultAttributes(car)).toEqual([
      { name: 'colour', value: 'red' },
      { name: 'occluded', value: false },
      { name: 'doors', value: 4 },
      { name: 'plate', value: '' },
    ]);
    expect(defaultAttributes({ attributes: [{ name: 's', kind: 'select', options: ['a', 'b'] }] })).toEqual([{ name: 's', value: 'a' }]);
    expect(defaultAttributes(undefined)).toEqual([]);
  });
});

describe('annotation attributes against their class', () => {
  const msg = (attrs: unknown) => attributesProblem(attrs, car)?.message ?? null;
  it('accepts fitting values, missing ones and null for non-checkboxes', () => {
    expect(msg([{ name: 'colour', value: 'blue' }, { name: 'occluded', value: true }, { name: 'doors', value: 2.5 }, { name: 'plate', value: 'AB 12' }])).toBeNull();
    expect(msg([])).toBeNull();
    expect(msg(undefined)).toBeNull();
    expect(msg([{ name: 'doors', value: null }])).toBeNull();
  });
  it('names the attribute that does not fit', () => {
    expect(msg([{ name: 'colour', value: 'green' }])).toBe('Attribute "colour" of class "car" must be one of its options ("red", "blue")');
    expect(msg([{ name: 'doors', value: 'four' }])).toBe('Attribute "doors" of class "car" must be a number');
    expect(msg([{ name: 'occluded', value: 'yes' }])).toBe('Attribute "occluded" of class "car" must be true or false');
    expect(msg([{ name: 'occluded', value: null }])).toBe('Attribute "occluded" of class "car" must be true or false');
    expect(msg([{ name: 'plate', value: 7 }])).toBe('Attribute "plate" of class "car" must be text');
    expect(msg([{ name: 'speed', value: 3 }])).toBe('Attribute "speed" is not defined for class "car"');
    expect(msg([{ name: 'doors', value: 1 }, { name: 'doors', value: 2 }])).toBe('Attribute "doors" of class "car" appears twice');
    expect(msg(['free text'])).toBe('Attribute entry 1 of class "car" must be {name, value}');
    expect(msg([{ key: 'doors', value: 1 }])).toBe('Attribute entry 1 of class "car" must be {name, value}');
    expect(msg({ doors: 1 })).toBe('The attributes of class "car" must be a list of {name, value} entries');
    expect(attributesProblem([{ name: 'doors', value: 'x' }], car)?.attribute).toBe('doors');
  });
  it('leaves classes without definitions free-form', () => {
    expect(attributesProblem(['anything', { k: 1 }], { name: 'tree', attributes: [] })).toBeNull();
    expect(attributesProblem(['anything'], { name: 'tree' })).toBeNull();
  });
  it('finds the first bad annotation of a list', () => {
    const classes = new Map<string, { name: string; attributes?: ProjectClass['attributes'] }>([['car', car], ['tree', { name: 'tree' }]]);
    const list = [
      { id: 't', name: 'tree', attributes: ['free'] },
      { id: 'a', name: 'car', attributes: [{ name: 'doors', value: 3 }] },
      { id: 'b', name: 'car', attributes: [{ name: 'colour', value: 'pink' }] },
    ];
    expect(findAttributeProblem(list, classes)).toEqual({ index: 2, attribute: 'colour', message: 'Annotation 2 (id "b"): Attribute "colour" of class "car" must be one of its options ("red", "blue")' });
    expect(findAttributeProblem(list.slice(0, 2), classes)).toBeNull();
  });
  it('keeps entries that are unchanged from what the annotation held (a definition changed since)', () => {
    const stale = [{ name: 'colour', value: 'green' }, { name: 'speed', value: 3 }];
    expect(attributesProblem(stale, car, stale)).toBeNull();
    expect(attributesProblem(stale, car, [{ name: 'colour', value: 'green' }])?.attribute).toBe('speed');
    expect(attributesProblem([{ name: 'colour', value: 'pink' }], car, stale)?.attribute).toBe('colour');
    expect(attributesProblem([...stale, { name: 'colour', value: 'red' }], car, stale)?.message).toBe('Attribute "colour" of class "car" appears twice');
    const classes = new Map([['car', car]]);
    const held = new Map([['a', { name: 'car', attributes: stale }]]);
    expect(findAttributeProblem([{ id: 'a', name: 'car', attributes: stale }], classes, held)).toBeNull();
    expect(findAttributeProblem([{ id: 'b', name: 'car', attributes: stale }], classes, held)?.index).toBe(0);
  });
  it('keeps no entry of a shape given another class (issue 30, finding 4: a relabel slipped in values the new class refuses)', () => {
    const classes = new Map<string, Pick<ProjectClass, 'name' | 'attributes'>>([['car', car], ['tree', { name: 'tree' }]]);
    const free = [{ name: 'colour', value: { toString: 1 } }];
    const held = new Map([['a', { name: 'tree', attributes: free }]]);
    expect(findAttributeProblem([{ id: 'a', name: 'tree', attributes: free }], classes, held)).toBeNull();
    expect(findAttributeProblem([{ id: 'a', name: 'car', attributes: free }], classes, held)).toMatchObject({ index: 0, attribute: 'colour' });
  });
  it('drops what does not fit for importers', () => {
    expect(fittingAttributes([{ name: 'doors', value: 2 }, { name: 'occluded', value: 'yes' }, { name: 'visible', value: false }], car)).toEqual({ kept: [{ name: 'doors', value: 2 }], dropped: ['occluded', 'visible'] });
    expect(fittingAttributes(['x'], { name: 'tree' })).toEqual({ kept: ['x'], dropped: [] });
    // Values other tools write as text or numbers are read as the kind says.
    expect(
      fittingAttributes([{ name: 'doors', value: '3' }, { name: 'occluded', value: 'true' }, { name: 'plate', value: 42 }, { name: 'colour', value: 'blue' }], car),
    ).toEqual({ kept: [{ name: 'doors', value: 3 }, { name: 'occluded', value: true }, { name: 'plate', value: '42' }, { name: 'colour', value: 'blue' }], dropped: [] });
    expect(fittingAttributes([{ name: 'doors', value: 'four' }, { name: 'occluded', value: 'maybe' }], car)).toEqual({ kept: [], dropped: ['doors', 'occluded'] });
  });
});

describe('the class palette', () => {
  it('is DESIGN.md\'s 15 pastel colours in order', () => {
    expect(CLASS_PALETTE).toEqual(['#F07575', '#ACF6E7', '#F075A6', '#75F0A6', '#F6ACE7', '#ACF6AC', '#D775F0', '#A6F075', '#CAACF6', '#E7F6AC', '#7575F0', '#F0D775', '#ACCAF6', '#F6CAAC', '#75D7F0']);
  });
  it('measures CIEDE2000 on CIELAB (reference pairs of Sharma et al.)', () => {
    expect(hexToLab('#FFFFFF').map((v) => Math.round(v * 100) / 100 + 0)).toEqual([100, 0, 0]);
    expect(deltaE2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 3);
    expect(deltaE2000([50, 2.5, 0], [73, 25, -18])).toBeCloseTo(27.1492, 3);
    expect(deltaE2000([2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514])).toBeCloseTo(0.9082, 3);
  });
  it('gives the first class the first colour and each next one the colour furthest from those in use', () => {
    expect(nextClassColor([])).toBe('#F07575');
    const used: string[] = [];
    for (let i = 0; i < CLASS_PALETTE.length; i++) {
      const c = nextClassColor(used);
      // Furthest: no other free palette colour is further from its nearest used colour.
      const nearest = (x: string) => Math.min(...used.map((u) => deltaE2000(hexToLab(x), hexToLab(u))));
      if (used.length) for (const other of CLASS_PALETTE.filter((p) => !used.includes(p))) expect(nearest(c)).toBeGreaterThanOrEqual(nearest(other));
      expect(used).not.toContain(c);
      used.push(c);
    }
    expect(new Set(used).size).toBe(15);
    // Once all are used: the least used one.
    expect(nextClassColor([...used, ...used.filter((c) => c !== '#ACF6AC')])).toBe('#ACF6AC');
  });
  it('stays away from colours outside the palette (old projects keep theirs) and from the one to avoid', () => {
    // A red-pink from the earlier palette: the new pastel reds are close to it, so a new class does not take them.
    const c = nextClassColor(['#FFADAD']);
    expect(['#F07575', '#F075A6', '#F6ACE7', '#F6CAAC']).not.toContain(c);
    expect(nextClassColor([], '#F07575')).not.toBe('#F07575');
    expect(nextClassColor(['#f07575'])).not.toBe('#F07575');
    // Ignores what is not a colour.
    expect(nextClassColor(['nope'])).toBe('#F07575');
  });
});

import { describe, expect, it } from 'vitest';
import { findAnnotationProblem, isPlainStoredAnnotation, storedAnnotationIssue } from './annotation-check';

const bb = { x: 1, y: 2, w: 3, h: 4 };
const box = (id: string, name = 'car') => ({ id, name, bounding_box: bb });

describe('the stored-annotation validator', () => {
  it('accepts a valid list and names nothing', () => {
    const list = [box('a'), { id: 'b', name: 'roof', bounding_box: bb, polygon: { path: [[0, 0], [4, 0], [4, 3]] } }, { ...box('m'), attributes: [{ name: 'occluded', value: true }] }];
    expect(findAnnotationProblem(list, new Set(['car', 'roof']))).toBeNull();
  });

  it('names the first bad annotation, its id and the field', () => {
    const list = [box('a'), { id: 'b', name: 'car', bounding_box: bb, polygon: { path: [[0, 0], [1, 1]] } }];
    const p = findAnnotationProblem(list);
    expect(p).toMatchObject({ index: 1, code: 'invalid_annotation' });
    expect(p!.message).toMatch(/^Annotation 1 \(id "b"\): polygon\.path/);
  });

  it('refuses a repeated id and a class the project does not have', () => {
    expect(findAnnotationProblem([box('a'), box('a')])).toMatchObject({ index: 1, code: 'duplicate_annotation_id' });
    expect(findAnnotationProblem([box('a'), box('b', 'bus')], new Set(['car']))).toMatchObject({ index: 1, code: 'unknown_class', message: 'Unknown class "bus"' });
    expect(findAnnotationProblem([box('b', 'bus')])).toBeNull();
  });

  it('refuses ids and class names the database cannot store, also on the fast path', () => {
    for (const a of [box('a\u0000'), box('a', 'c\ud800')]) {
      expect(isPlainStoredAnnotation(a)).toBe(false);
      expect(storedAnnotationIssue(a)?.message).toMatch(/NUL characters or unpaired surrogates/);
    }
  });

  it('bounds every client-chosen key (issue 30): ids, class names, keys, extra keys, attribute entries, depth and size', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    const cases: [unknown, RegExp][] = [
      [box('i'.repeat(201)), /^The id must be at most 200 characters/],
      [box('a', 'n'.repeat(101)), /^The class name must be at most 100 characters/],
      [{ ...box('a'), bounding_box: { ...bb, ['k'.repeat(201)]: 1 } }, /^Object keys must be at most 200 characters/],
      [{ ...box('a'), attributes: [{ name: 'n'.repeat(201), value: 1 }] }, /^An attribute name must be at most 200/],
      [{ ...box('a'), attributes: Array.from({ length: 201 }, () => 1) }, /^The attributes must be at most 200 entries/],
      [{ ...box('a'), ...Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 1])) }, /^An annotation may hold at most 50 keys/],
      [{ ...box('a'), note: 'x'.repeat(70_000) }, /^Attributes and extra keys must be at most 64 KB/],
      [{ ...box('a'), attributes: [deep] }, /^Values may be nested at most 20 levels deep/],
    ];
    for (const [a, message] of cases) {
      expect(isPlainStoredAnnotation(a)).toBe(false);
      expect(storedAnnotationIssue(a)?.message).toMatch(message);
      expect(findAnnotationProblem([a])?.code).toBe('invalid_annotation');
    }
    // At the limits: valid.
    expect(storedAnnotationIssue({ ...box('i'.repeat(200), 'n'.repeat(100)), attributes: [{ name: 'n'.repeat(200), value: { ['k'.repeat(200)]: 1 } }] })).toBeNull();
  });
});

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
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_QUERY, NO_ANNOTATION_FILTER, annotationFilterParams, dataQueryString, imagePath, isUuid, looksInEveryFolder, parseDataQuery, projectPath, sameDataQuery } from './links';

const P = '6f1c0d1e-52a4-4c53-9a5e-1b2f3c4d5e6f';
const I = '0b7c1a6e-3f1d-4a8e-9c2b-7d6e5f4a3b2c';
const parse = (s: string) => parseDataQuery(new URLSearchParams(s));

describe('Data view query', () => {
  it('a name search and an assignee filter look through every folder; a folder alone does not', () => {
    expect(looksInEveryFolder(parse('folder=%2Fcats'))).toBe(false);
    expect(looksInEveryFolder(parse('folder=%2Fcats&stage=review'))).toBe(false);
    expect(looksInEveryFolder(parse('folder=%2Fcats&q=img'))).toBe(true);
    expect(looksInEveryFolder(parse('folder=%2Fcats&assignee=me'))).toBe(true);
    expect(looksInEveryFolder(parse('assignee=none'))).toBe(true);
  });

  it('the default view has no query string', () => {
    expect(dataQueryString(DEFAULT_DATA_QUERY)).toBe('');
    expect(parse('')).toEqual(DEFAULT_DATA_QUERY);
  });

  it('reads back what it writes: folder, search, stage, assignee and sort', () => {
    const q = { ...DEFAULT_DATA_QUERY, folderPath: '/cats/black & white', status: 'review' as const, search: 'img 1', sort: { field: 'filename' as const, order: 'asc' as const }, assignee: 'me' };
    const text = dataQueryString(q);
    expect(text).toBe('?folder=%2Fcats%2Fblack+%26+white&q=img+1&stage=review&assignee=me&sort=filename&order=asc');
    expect(parse(text)).toEqual(q);
  });

  it('writes only what differs from the default view', () => {
    expect(dataQueryString({ ...DEFAULT_DATA_QUERY, sort: { field: 'created_at', order: 'asc' } })).toBe('?sort=created_at&order=asc');
    expect(dataQueryString({ ...DEFAULT_DATA_QUERY, status: 'new' })).toBe('?stage=new');
  });

  it('falls back to the default for anything malformed', () => {
    expect(parse('folder=a//b&stage=finished&sort=colour&order=up&assignee=someone')).toEqual(DEFAULT_DATA_QUERY);
    expect(parse('sort=filename&order=sideways').sort).toEqual({ field: 'filename', order: 'desc' });
    expect(parse(`q=${'x'.repeat(300)}`).search).toHaveLength(200);
  });

  it('normalises a folder path and accepts a member id or none as the assignee', () => {
    expect(parse('folder=cats/').folderPath).toBe('/cats');
    expect(parse(`assignee=${I}`).assignee).toBe(I);
    expect(parse('assignee=none').assignee).toBe('none');
  });

  it('compares views by their query', () => {
    expect(sameDataQuery(parse('stage=new&folder=/a'), parse('folder=%2Fa&stage=new'))).toBe(true);
    expect(sameDataQuery(parse('stage=new'), parse('stage=complete'))).toBe(false);
  });
});

describe('paths', () => {
  it('names a project tab and an image in the editor', () => {
    expect(projectPath(P)).toBe(`/projects/${P}/data`);
    expect(projectPath(P, 'classes')).toBe(`/projects/${P}/classes`);
    expect(projectPath(P, 'data', '?stage=new')).toBe(`/projects/${P}/data?stage=new`);
    expect(imagePath(P, I, '?q=cat')).toBe(`/projects/${P}/images/${I}?q=cat`);
  });

  it('checks ids before any call', () => {
    expect(isUuid(P)).toBe(true);
    expect(isUuid('42')).toBe(false);
    expect(isUuid(undefined)).toBe(false);
    expect(isUuid(`${P}x`)).toBe(false);
  });

  it('annotation filters: class repeated, annotated, a count range, read back as written', () => {
    const q = { ...DEFAULT_DATA_QUERY, annotations: { classes: ['car', 'traffic light', 'a&b'], annotated: 'yes' as const, min: 2, max: 10 } };
    const text = dataQueryString(q);
    expect(text).toBe('?class=car&class=traffic+light&class=a%26b&annotated=yes&min_annotations=2&max_annotations=10');
    expect(parse(text)).toEqual(q);
    expect(parse('annotated=no').annotations).toEqual({ ...NO_ANNOTATION_FILTER, annotated: 'no' });
    expect(parse('min_annotations=0').annotations).toEqual({ ...NO_ANNOTATION_FILTER, min: 0 });
  });

  it('an annotation filter looks through every folder; opening the default view has none', () => {
    expect(looksInEveryFolder(parse('folder=%2Fcats&class=car'))).toBe(true);
    expect(looksInEveryFolder(parse('folder=%2Fcats&annotated=no'))).toBe(true);
    expect(looksInEveryFolder(parse('folder=%2Fcats&max_annotations=3'))).toBe(true);
    expect(parse('folder=%2Fcats').annotations).toEqual(NO_ANNOTATION_FILTER);
  });

  it('malformed annotation filters fall back to none', () => {
    expect(parse('annotated=maybe&min_annotations=-1&max_annotations=2.5&class=').annotations).toEqual(NO_ANNOTATION_FILTER);
    expect(parse('min_annotations=5&max_annotations=2').annotations).toEqual(NO_ANNOTATION_FILTER);
    expect(parse('class=car&class=car&class=%20bus%20').annotations.classes).toEqual(['car', 'bus']);
    expect(parse(`class=${'x'.repeat(501)}`).annotations.classes).toEqual([]);
  });

  it('names the annotation filters as the images list takes them', () => {
    expect(annotationFilterParams(NO_ANNOTATION_FILTER)).toEqual({});
    expect(annotationFilterParams({ classes: ['car'], annotated: 'no', min: 0, max: 4 })).toEqual({ class: ['car'], has_annotations: 'false', min_annotations: 0, max_annotations: 4 });
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_QUERY, NO_ANNOTATION_FILTER, dataQueryString, looksInEveryFolder, parseDataQuery, pendingFilterParams, type DataQuery } from '../lib/links';
import { bindQueryWriter, useDataView } from './dataView';

const P = 'project-1';
let written: { url: string; mode: string }[] = [];
let unbind: () => void;

beforeEach(() => {
  written = [];
  useDataView.getState().applyQuery(P, DEFAULT_DATA_QUERY);
  unbind = bindQueryWriter((q: DataQuery, mode) => written.push({ url: dataQueryString(q), mode }));
});
afterEach(() => unbind());

describe('the Data view and its URL', () => {
  it('a folder, a filter and a sort are new history entries', () => {
    const view = useDataView.getState;
    view().openFolder('/cats');
    view().setStatus('review');
    view().chooseSort('filename');
    view().chooseSort('filename');
    view().setAssignee('me');
    expect(written).toEqual([
      { url: '?folder=%2Fcats', mode: 'push' },
      { url: '?folder=%2Fcats&stage=review', mode: 'push' },
      { url: '?folder=%2Fcats&stage=review&sort=filename&order=desc', mode: 'push' },
      { url: '?folder=%2Fcats&stage=review&sort=filename&order=asc', mode: 'push' },
      { url: '?folder=%2Fcats&stage=review&assignee=me&sort=filename&order=asc', mode: 'push' },
    ]);
  });

  it('opening a folder leaves My work, which looks through every folder', () => {
    const view = useDataView.getState;
    view().setAssignee('me');
    view().openFolder('/cats');
    expect(written.map((w) => w.url)).toEqual(['?assignee=me', '?folder=%2Fcats']);
  });

  it('typing a search replaces the entry; starting and ending it are steps Back can undo', () => {
    const view = useDataView.getState;
    view().setSearch('c');
    view().setSearch('ca ');
    view().setSearch('ca');
    view().setSearch('');
    expect(written).toEqual([
      { url: '?q=c', mode: 'push' },
      { url: '?q=ca', mode: 'replace' },
      { url: '', mode: 'push' },
    ]);
  });

  it('a choice clears the selection; applying the URL (Back, Forward) changes the view without writing', () => {
    const view = useDataView.getState;
    view().setSelection(['a', 'b'], 'a');
    view().openFolder('/dogs');
    expect(view().selected.size).toBe(0);
    written = [];
    view().setSelection(['c']);
    view().applyQuery(P, { ...DEFAULT_DATA_QUERY, folderPath: '/birds' });
    expect(view().folderPath).toBe('/birds');
    expect(view().selected.size).toBe(0);
    expect(written).toEqual([]);
    // The same view again (the URL written by the view itself) keeps the selection.
    view().setSelection(['d']);
    view().applyQuery(P, { ...DEFAULT_DATA_QUERY, folderPath: '/birds' });
    expect([...view().selected]).toEqual(['d']);
  });

  it('the pending-predictions filter (issue 34) is in the URL, looks through every folder and reaches the list request', () => {
    const view = useDataView.getState;
    view().openFolder('/cats');
    view().setAnnotationFilter({ pending: 'yes' });
    expect(written.at(-1)).toEqual({ url: '?folder=%2Fcats&pending=yes', mode: 'push' });
    expect(parseDataQuery(new URLSearchParams('pending=no')).annotations.pending).toBe('no');
    expect(parseDataQuery(new URLSearchParams('pending=maybe')).annotations.pending).toBeUndefined();
    expect(looksInEveryFolder({ search: '', assignee: null, annotations: { ...NO_ANNOTATION_FILTER, pending: 'no' } })).toBe(true);
    expect(pendingFilterParams({ ...NO_ANNOTATION_FILTER, pending: 'no' })).toEqual({ has_pending_predictions: 'false' });
    expect(pendingFilterParams(NO_ANNOTATION_FILTER)).toEqual({});
  });
});

// The image's place in its sequence, as React reads it: the sequence itself (the Data view's list
// asked for, previous and next, their background loading) is the session's
// (src/app/editor-session/sequence.ts); this fetches the list, goes to a neighbour, and tells
// Auto-Annotate the next image.
import { useCallback, useEffect, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Image } from '../../../../contract/images';
import { api } from '../../../api/client';
import type { DataQuery } from '../../../lib/links';
import { prefetchNeighbours, sequenceOf, sequencePlace, sequenceRequest } from '../../../editor-session/sequence';
import type { EditorSession } from '../../../editor-session/session';
import { preloadFor } from '../../../../workers/render-client';

export function useSequence({ session, image, sequence, orgId, projectId, ready, onNavigate }: { session: EditorSession; image: Image; sequence: Image[] | undefined; orgId: string; projectId: string; ready: boolean; onNavigate(image: Image): void }) {
  const { index, previous, next } = useMemo(() => sequencePlace(sequence, image.id), [sequence, image.id]);
  const { editor, auto } = session;
  // Auto-Annotate prepares the next image's embedding ahead.
  const nextName = next?.filename ?? null;
  useEffect(() => auto.setNext(nextName), [auto, nextName]);

  // Neighbours load in the background once this image is up.
  useEffect(() => (ready ? prefetchNeighbours({ editor, orgId, projectId, neighbours: [next, previous], preload: preloadFor }) : undefined), [ready, next, previous, orgId, projectId, editor]);

  const goPrevious = useCallback(() => previous && onNavigate(previous), [previous, onNavigate]);
  const goNext = useCallback(() => next && onNavigate(next), [next, onNavigate]);
  return { index, previous, next, goPrevious, goNext };
}

/** The editor's copy of an image (the stage picker and saves update it under ['editor-image', projectId]). */
export const editorImageKey = (projectId: string | undefined, imageId: string) => ['editor-image', projectId, imageId] as const;

/**
 * The sequence for `image` in the view `query` (editor-session/sequence.ts's sequenceRequest).
 * Undefined while it loads, and when the image is not in it (filtered out since it was opened, or a
 * link with another view's query): the image is then shown alone.
 */
export function useSequenceImages({ projectId, orgId, image, query }: { projectId: string | undefined; orgId: string; image: Image | null; query: DataQuery }): Image[] | undefined {
  const request = sequenceRequest(query, orgId);
  const sequenceQuery = useQuery({
    queryKey: ['editor-sequence', projectId, ...request.key],
    enabled: Boolean(projectId && orgId && image),
    staleTime: 60_000,
    queryFn: async () => (await api.listImages(projectId!, request.params)).images,
  });
  return sequenceOf(sequenceQuery.data, image);
}

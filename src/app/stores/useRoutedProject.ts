// The project a URL names (/projects/:projectId/...), loaded by its id (issue 29). A malformed id,
// a project that does not exist and one of an organization the member is not in all end the same
// way, 'notFound', so a link reveals nothing. A project of another of the member's organizations
// makes that organization the current one (roles and menus follow it), and the project is
// remembered as the last one opened (the old /project path goes back to it).
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Project } from '../../contract/projects';
import { api, isApiError } from '../api/client';
import { isUuid } from '../lib/links';
import { useSelection } from './selection';
import { useSession } from './session';
import { projectKey } from './projectQueries';

export type RoutedProject =
  | { status: 'loading' }
  | { status: 'notFound' }
  | { status: 'error'; retry(): void }
  | { status: 'ready'; project: Project; orgId: string };

/** 4xx answers to a read by id: the thing is not there for this caller (400 for a malformed id). */
export const isNotFound = (err: unknown): boolean => isApiError(err) && err.status >= 400 && err.status < 500 && err.status !== 401;

export function useRoutedProject(projectId: string | undefined): RoutedProject {
  const valid = isUuid(projectId);
  const organizations = useSession((s) => s.organizations);
  const currentOrgId = useSession((s) => s.currentOrganization?.id);
  const query = useQuery({
    queryKey: projectKey(projectId),
    queryFn: async () => (await api.getProject(projectId!)).project,
    enabled: valid,
    retry: (n, err) => !isNotFound(err) && n < 1,
  });
  const project = query.data;
  const member = project ? organizations.some((o) => o.id === project.organization_id) : false;
  // The server answered, so the member is in its organization: a list that says otherwise is stale
  // (an invite accepted in another tab). It is read again once before the page gives up.
  const [recheckedFor, setRecheckedFor] = useState<string | null>(null);
  useEffect(() => {
    if (!project || member || recheckedFor === project.id) return;
    void useSession
      .getState()
      .refreshProfile({ quiet: true })
      .finally(() => setRecheckedFor(project.id));
  }, [project, member, recheckedFor]);

  useEffect(() => {
    if (project && member && currentOrgId !== project.organization_id) useSession.getState().setCurrentOrganization(project.organization_id);
  }, [project, member, currentOrgId]);

  const ready = Boolean(project && member && currentOrgId === project.organization_id);
  useEffect(() => {
    // Remembered (after any organization switch, which forgets the selection).
    if (ready && project) useSelection.getState().select(project);
  }, [ready, project]);

  if (!valid) return { status: 'notFound' };
  if (query.isError) return isNotFound(query.error) ? { status: 'notFound' } : { status: 'error', retry: () => void query.refetch() };
  if (!project) return { status: 'loading' };
  if (!member) return recheckedFor === project.id ? { status: 'notFound' } : { status: 'loading' };
  if (!ready) return { status: 'loading' };
  return { status: 'ready', project, orgId: project.organization_id };
}

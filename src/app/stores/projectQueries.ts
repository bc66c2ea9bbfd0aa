import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Project } from '../../contract/projects';
import { api } from '../api/client';

export const projectsKey = (orgId: string | undefined) => ['projects', orgId] as const;
export const projectKey = (id: string | undefined) => ['project', id] as const;

export function useProjects(orgId: string | undefined) {
  return useQuery({
    queryKey: projectsKey(orgId),
    queryFn: async () => (await api.listProjects(orgId!)).projects,
    enabled: Boolean(orgId),
  });
}

/** Puts a created or updated project into the cached list so the grid shows it at once. */
export function useProjectCache() {
  const qc = useQueryClient();
  return {
    upsert(project: Project) {
      qc.setQueryData<Project[]>(projectsKey(project.organization_id), (old) => {
        if (!old) return old;
        const i = old.findIndex((p) => p.id === project.id);
        if (i === -1) return [project, ...old];
        const next = old.slice();
        next[i] = project;
        return next;
      });
      qc.setQueryData(projectKey(project.id), project);
      void qc.invalidateQueries({ queryKey: projectsKey(project.organization_id) });
    },
    remove(project: Project) {
      qc.setQueryData<Project[]>(projectsKey(project.organization_id), (old) => old?.filter((p) => p.id !== project.id));
      qc.removeQueries({ queryKey: projectKey(project.id) });
      void qc.invalidateQueries({ queryKey: projectsKey(project.organization_id) });
    },
  };
}

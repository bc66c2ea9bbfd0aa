// The paths before issue 29, kept working as redirects (in place of the old entry, so Back does not
// bounce): /project opens the last project's Data tab (or the projects page), and
// /project/annotate/<filename> the image of that name in the last project (or that project), and
// /projects/:projectId goes to its Data tab.
import { useQuery } from '@tanstack/react-query';
import { Navigate, useLocation, useParams } from 'react-router-dom';
import { api } from '../../api/client';
import { FullPageLoading } from '../../components/FullPage';
import { imagePath, projectPath } from '../../lib/links';
import { useSelection } from '../../stores/selection';

export function LegacyProjectRedirect() {
  const last = useSelection((s) => s.project);
  return <Navigate to={last ? projectPath(last.id, 'data') : '/select'} replace />;
}

export function ProjectIndexRedirect() {
  const { projectId = '' } = useParams();
  const { search } = useLocation();
  return <Navigate to={projectPath(projectId, 'data', search)} replace />;
}

export function LegacyImageRedirect() {
  const last = useSelection((s) => s.project);
  const { imageName = '' } = useParams();
  const found = useQuery({
    queryKey: ['legacy-image', last?.id, imageName],
    enabled: Boolean(last && imageName),
    retry: false,
    queryFn: async () => {
      const res = await api.listImages(last!.id, { org_id: last!.organization_id, search: imageName, page: 1, limit: 100, sort_by: 'created_at', sort_order: 'desc', is_archived: 'all' });
      const named = res.images.filter((i) => i.filename === imageName);
      return named.find((i) => !i.is_archived) ?? named[0] ?? null;
    },
  });
  if (!last) return <Navigate to="/select" replace />;
  if (found.isPending && imageName) return <FullPageLoading text="Loading image..." />;
  return <Navigate to={found.data ? imagePath(last.id, found.data.id) : projectPath(last.id, 'data')} replace />;
}

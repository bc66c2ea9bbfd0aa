// /project/annotate/:imageName. The editor arrives with the editor-engine work; until then this
// route keeps its contract (redirects without a selected project, Back returns the image name).
import { Navigate, useLocation, useNavigate, useParams } from 'react-router-dom';
import { joinFolderPath } from '../../../contract/folders';
import { ArrowLeft, PencilRuler } from 'lucide-react';
import { Button } from '../../components/Button';
import { useSelection } from '../../stores/selection';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import styles from './AnnotatePage.module.css';

export function AnnotatePage() {
  const selected = useSelection((s) => s.project);
  const { imageName = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  // The Data tab passes the image's folder; Back returns the name including that path.
  const folderPath = (location.state as { folderPath?: string } | null)?.folderPath;
  const returnFromImage = folderPath ? joinFolderPath(folderPath, imageName) : imageName;
  useDocumentTitle(imageName || 'Annotate');
  if (!selected) return <Navigate to="/select" replace />;
  return (
    <div className={styles.page}>
      <header className={styles.bar}>
        <Button variant="ghost" size="sm" icon={<ArrowLeft />} onClick={() => navigate('/project', { state: { returnFromImage } })}>
          Back
        </Button>
        <span className={styles.name}>{imageName}</span>
        <span className={styles.project}>{selected.name}</span>
      </header>
      <div className={styles.stage}>
        <div className={styles.message}>
          <PencilRuler aria-hidden="true" />
          <h1>The annotation editor is coming next</h1>
          <p>Boxes, polygons, polylines, keypoints and assisted masks will open here.</p>
        </div>
      </div>
    </div>
  );
}

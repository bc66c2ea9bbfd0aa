// Ground truth in the editor's top bar (issue 36 §2): a reviewer, admin or owner marks an accepted
// (complete) image's annotations as ground truth, or takes the mark off. Annotators never see it:
// the server shows them a ground-truth image as any other (docs/analytics.md).
import { Target } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { Image, ImageStatus } from '../../../../contract/images';
import { roleCan } from '../../../../contract/permissions';
import { serverMessage } from '../../../api/client';
import { qualityApi } from '../../../api/quality';
import { Tooltip } from '../../../components/Tooltip';
import { useSession } from '../../../stores/session';
import { toast } from '../../../stores/toast';
import styles from './Workflow.module.css';

export function GroundTruthToggle({ image, status, orgId }: { image: Image; status: ImageStatus; orgId: string }) {
  const role = useSession((s) => s.organizations.find((org) => org.id === orgId)?.user_role ?? null);
  const mayMark = Boolean(role && roleCan(role, 'images.review'));
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setEnabled(null);
    if (!mayMark) return;
    let live = true;
    qualityApi.groundTruth(image.id).then(
      (res) => live && setEnabled(res.ground_truth.enabled),
      () => live && setEnabled(null),
    );
    return () => {
      live = false;
    };
  }, [image.id, mayMark]);
  // Only an accepted image can become ground truth; one already marked can always be unmarked.
  if (!mayMark || enabled === null || (status !== 'complete' && !enabled)) return null;
  const toggle = async () => {
    setBusy(true);
    try {
      const res = await qualityApi.setGroundTruth(image.id, !enabled);
      setEnabled(res.ground_truth.enabled);
      toast(res.ground_truth.enabled ? `Ground truth: ${res.ground_truth.shapes} shape${res.ground_truth.shapes === 1 ? '' : 's'} kept as the reference` : 'No longer ground truth', 'success');
    } catch (err) {
      toast(serverMessage(err, 'Could not change the ground truth'), 'danger');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Tooltip content={enabled ? 'Annotators get this image in their queue to be scored. Click to stop.' : 'Use these accepted annotations to score annotators'} side="bottom">
      <button type="button" className={styles.issuesToggle} aria-pressed={enabled} disabled={busy} onClick={() => void toggle()} data-testid="ground-truth-toggle">
        <Target aria-hidden="true" />
        <span>Ground truth</span>
      </button>
    </Tooltip>
  );
}

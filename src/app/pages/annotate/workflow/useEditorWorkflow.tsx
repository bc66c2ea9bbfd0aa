// The team workflow in the editor screen (issue 29), as two pieces the screen places: the top
// bar's actions (Issues, Submit for review, Accept, Reject...) and the layer over the canvas (the
// issues panel, the region drag). Behind them: the review flow (./useReviewFlow), the image's
// issues (./useIssues) and the workflow keys (./useWorkflowKeys).
import { useCallback, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Image, ImageStatus } from '../../../../contract/images';
import { roleCan } from '../../../../contract/permissions';
import type { Editor } from '../../../../engine';
import { mergePath } from '../../../lib/links';
import { deniedReason, ROLE_LABEL } from '../../../stores/permissions';
import { useSession } from '../../../stores/session';
import type { EditorSaveLink, SaveManager } from '../../../sync/save';
import { GroundTruthToggle } from './GroundTruthToggle';
import { IssueRegionDrag } from './IssueRegionDrag';
import { IssuesPanel } from './IssuesPanel';
import { ReviewActions } from './ReviewActions';
import { useIssues } from './useIssues';
import { useReviewFlow } from './useReviewFlow';
import { useWorkflowKeys } from './useWorkflowKeys';

export interface EditorWorkflowOptions {
  editor: Editor;
  image: Image;
  status: ImageStatus;
  orgId: string;
  projectId: string;
  saver: SaveManager;
  link: EditorSaveLink;
  /** An earlier version is shown. */
  previewing: boolean;
  /** This image's document is in the editor. */
  documentIn: boolean;
  onNavigate(image: Image): void;
  onBack(): void;
}

export function useEditorWorkflow(o: EditorWorkflowOptions): { actions: ReactNode; layer: ReactNode } {
  const flow = useReviewFlow(o);
  const navigate = useNavigate();
  const issues = useIssues({ editor: o.editor, image: o.image, orgId: o.orgId, documentIn: o.documentIn });
  const role = useSession((s) => s.organizations.find((org) => org.id === o.orgId)?.user_role ?? null);
  const issueDenied = role && roleCan(role, 'issues.write') ? null : deniedReason(role ? ROLE_LABEL[role] : 'member', 'open or answer issues');
  const [dragging, setDragging] = useState(false);
  const { startDraft, setOpen } = issues;
  const dragRegion = useCallback(() => {
    setDragging(true);
    setOpen(true);
  }, [setOpen]);
  useWorkflowKeys({
    editor: o.editor,
    previewing: o.previewing,
    canSubmit: flow.canSubmit,
    canReview: flow.canReview,
    issueDenied,
    submit: () => void flow.submit(),
    accept: () => void flow.accept(),
    openReject: () => flow.setRejectOpen(true),
    issueAt: (p) => startDraft(p),
    dragRegion,
  });
  const openIssues = issues.issues.filter((i) => i.status === 'open').length;
  const actions = (
    <>
      <GroundTruthToggle image={o.image} status={o.status} orgId={o.orgId} />
      <ReviewActions flow={flow} openIssues={openIssues} issuesOpen={issues.open} onToggleIssues={() => setOpen(!issues.open)} onMerge={o.image.overlap > 1 ? () => void navigate(mergePath(o.projectId, o.image.id)) : undefined} />
    </>
  );
  const layer = (
    <>
      {dragging && o.documentIn ? (
        <IssueRegionDrag
          editor={o.editor}
          onDone={(region) => {
            setDragging(false);
            startDraft(region);
          }}
          onCancel={() => setDragging(false)}
        />
      ) : null}
      {issues.open ? <IssuesPanel state={issues} writeDenied={issueDenied} onDragRegion={dragRegion} onClose={() => setOpen(false)} /> : null}
    </>
  );
  return { actions, layer };
}

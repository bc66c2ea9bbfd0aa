// The review loop in the editor's top bar (issue 29): Submit for review (Ctrl/Cmd+Enter) for the
// annotator of an image in work; Accept (Ctrl/Cmd+Enter) and Reject... (Shift+R, a dialog with a
// comment for the annotator) for a reviewer of an image in review; and the Issues button with the
// count of open issues, which shows or hides the issues panel. On an overlapped image in review
// (all its annotators submitted), Merge drafts opens the reviewer's merge view (issue 36 §3). What
// the member may not do is not shown (src/app/stores/permissions.ts).
import { Check, GitMerge, MessageSquareWarning, Send, Undo2 } from 'lucide-react';
import { useEffect, useState } from 'react';
import { MAX_COMMENT_LENGTH } from '../../../../contract/workflow';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { TextAreaField } from '../../../components/TextField';
import { Tooltip } from '../../../components/Tooltip';
import { useShortcutLabel } from '../hooks/useShortcuts';
import type { ReviewFlow } from './useReviewFlow';
import styles from './Workflow.module.css';

export function ReviewActions(props: { flow: ReviewFlow; openIssues: number; issuesOpen: boolean; onToggleIssues(): void; onMerge?: () => void }) {
  const { flow, openIssues, issuesOpen, onToggleIssues, onMerge } = props;
  // The person's keys (issue 37: they may remap or turn off single-key shortcuts).
  const issueKey = useShortcutLabel('new_issue');
  const rejectKey = useShortcutLabel('reject');
  return (
    <div className={styles.actions} data-testid="review-actions">
      <Tooltip content={issuesOpen ? 'Hide the issues' : `Show the issues${issueKey ? ` (${issueKey} opens one at the pointer)` : ''}`} side="bottom">
        <button type="button" className={styles.issuesToggle} aria-pressed={issuesOpen} onClick={onToggleIssues} data-testid="issues-toggle">
          <MessageSquareWarning aria-hidden="true" />
          <span>Issues</span>
          {openIssues > 0 ? (
            <span className={styles.count} aria-label={`${openIssues} open`}>
              {openIssues}
            </span>
          ) : null}
        </button>
      </Tooltip>
      {flow.canSubmit ? (
        <Button variant="primary" size="sm" icon={<Send />} busy={flow.busy === 'submit'} busyLabel="Submitting..." aria-keyshortcuts="Control+Enter" onClick={() => void flow.submit()}>
          Submit for review <kbd className={styles.kbd}>Ctrl+Enter</kbd>
        </Button>
      ) : null}
      {flow.canReview ? (
        <>
          {onMerge ? (
            <Button variant="secondary" size="sm" icon={<GitMerge />} disabled={flow.busy !== null} onClick={onMerge} data-testid="merge-drafts">
              Merge drafts
            </Button>
          ) : null}
          <Button variant="secondary" size="sm" icon={<Undo2 />} disabled={flow.busy !== null} aria-keyshortcuts={rejectKey ?? undefined} onClick={() => flow.setRejectOpen(true)}>
            Reject… {rejectKey ? <kbd className={styles.kbd}>{rejectKey}</kbd> : null}
          </Button>
          <Button variant="primary" size="sm" icon={<Check />} busy={flow.busy === 'accept'} busyLabel="Accepting..." disabled={flow.busy !== null} aria-keyshortcuts="Control+Enter" onClick={() => void flow.accept()}>
            Accept <kbd className={styles.kbd}>Ctrl+Enter</kbd>
          </Button>
        </>
      ) : null}
      <RejectDialog flow={flow} />
    </div>
  );
}

/** Reject...: an optional comment for the annotator (it becomes an open issue on the whole image). */
export function RejectDialog({ flow }: { flow: ReviewFlow }) {
  const [comment, setComment] = useState('');
  useEffect(() => {
    if (!flow.rejectOpen) setComment('');
  }, [flow.rejectOpen]);
  const busy = flow.busy === 'reject';
  const left = MAX_COMMENT_LENGTH - comment.length;
  return (
    <Dialog
      open={flow.rejectOpen}
      onOpenChange={flow.setRejectOpen}
      title="Reject this image?"
      tone="danger"
      icon={<Undo2 />}
      description="It goes back to the annotator In progress. Say what to fix: your comment opens an issue they see when the image opens. Issues you pinned on shapes stay open too."
      dismissible={!busy}
      onSubmit={(e) => {
        e.preventDefault();
        void flow.reject(comment);
      }}
      footer={
        <>
          <Button onClick={() => flow.setRejectOpen(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" busy={busy} busyLabel="Rejecting...">
            Reject
          </Button>
        </>
      }
    >
      <TextAreaField
        label="Comment for the annotator"
        optional
        rows={4}
        autoFocus
        value={comment}
        maxLength={MAX_COMMENT_LENGTH}
        onChange={(e) => setComment(e.target.value)}
        onKeyDown={(e) => {
          // Ctrl/Cmd+Enter sends from the comment, as Enter would from a one-line field.
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
        hint={left < 200 ? `${left.toLocaleString()} characters left` : `At most ${MAX_COMMENT_LENGTH.toLocaleString()} characters`}
        data-testid="reject-comment"
      />
    </Dialog>
  );
}

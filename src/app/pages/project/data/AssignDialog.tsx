// "Assign..." (issue 29): who annotates and who reviews the selected images, or a folder's images.
// The annotator is one member, or several to share the images evenly among (round-robin, one call
// per member: ./assignPlan); the reviewer is one member. Only members who may do the work are
// offered (annotators: annotations.write; reviewers: images.review), as the server requires.
// Annotators per image (issue 36 §3, consensus): 2..5 gives each image to that many different
// annotators through their queues, each on a draft of their own, merged by a reviewer.
import { useQueryClient } from '@tanstack/react-query';
import { UserCheck } from 'lucide-react';
import { useEffect, useId, useMemo, useState } from 'react';
import { create } from 'zustand';
import { MAX_PAGE_SIZE } from '../../../../contract/images';
import { MAX_OVERLAP } from '../../../../contract/workflow';
import { roleCan, ROLE_LABEL } from '../../../../contract/permissions';
import { api, serverMessage } from '../../../api/client';
import { workflowApi } from '../../../api/workflow';
import { Avatar } from '../../../components/Avatar';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { useSession } from '../../../stores/session';
import { toast } from '../../../stores/toast';
import { projectKey } from '../../../stores/projectQueries';
import { assignmentPlan, overlapHint, overlapProblem, type AssigneeChoice, type OverlapChoice, type ReviewerChoice } from './assignPlan';
import { useDataView } from '../../../stores/dataView';
import { memberName, useOrgMembers } from './tilePeople';
import styles from './DataTab.module.css';

export type AssignTarget = { kind: 'selection'; ids: string[] } | { kind: 'folder'; path: string; name: string; count: number };

/** What "Assign..." was opened for (the selection bar, a folder tile); one dialog for the tab (AssignHost). */
const useAssignTarget = create<{ target: AssignTarget | null }>(() => ({ target: null }));
export const openAssign = (target: AssignTarget) => useAssignTarget.setState({ target });

/** The tab's one Assign dialog, for the project the Data view shows. */
export function AssignHost() {
  const target = useAssignTarget((s) => s.target);
  const projectId = useDataView((s) => s.projectId);
  const orgId = useSession((s) => s.currentOrganization?.id);
  if (!projectId || !orgId) return null;
  return <AssignDialog target={target} projectId={projectId} orgId={orgId} onClose={() => useAssignTarget.setState({ target: null })} />;
}

const plural = (n: number) => `${n.toLocaleString()} image${n === 1 ? '' : 's'}`;

/** Every image directly in the folder (not its sub-folders), in the grid's default order. */
async function folderImageIds(projectId: string, orgId: string, path: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await api.listImages(projectId, { org_id: orgId, folder_path: path, page, limit: MAX_PAGE_SIZE, sort_by: 'created_at', sort_order: 'desc', is_archived: 'false' });
    ids.push(...res.images.map((i) => i.id));
    if (res.images.length < MAX_PAGE_SIZE || !res.pagination.hasNext) return ids; // hasNext holds when a total is capped too
  }
}

type AnnotatorMode = 'assign' | 'keep' | 'clear';

const OVERLAP_OPTIONS = Array.from({ length: MAX_OVERLAP }, (_, i) => i + 1);

/** 'Annotators per image': left as it is, 1 (no overlap) or 2..MAX_OVERLAP, with what it means or why it cannot be. */
function OverlapField({ value, onChange, problem }: { value: number | null; onChange(v: number | null): void; problem: string | null }) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className={styles.assignGroup}>
      <label className={styles.assignLegend} htmlFor={id}>
        Annotators per image
      </label>
      <select
        id={id}
        className={styles.assignSelect}
        value={value === null ? 'keep' : String(value)}
        onChange={(e) => onChange(e.target.value === 'keep' ? null : Number(e.target.value))}
        aria-describedby={hintId}
        aria-invalid={problem ? true : undefined}
        data-testid="assign-overlap"
      >
        <option value="keep">Leave as it is</option>
        {OVERLAP_OPTIONS.map((n) => (
          <option key={n} value={n}>
            {n === 1 ? '1 (no overlap)' : `${n} (consensus: ${n} layers merged by a reviewer)`}
          </option>
        ))}
      </select>
      <span id={hintId} className={problem ? styles.assignError : styles.assignHint} role={problem ? 'alert' : undefined}>
        {problem ?? overlapHint(value) ?? 'How many different people annotate each image. More than one gives a measured agreement and a merge.'}
      </span>
    </div>
  );
}

// Long because it is one form: the annotators (one, or several to share among), the reviewer, each
// with keep or clear, and the calls they make together.
export function AssignDialog({ target, onClose, projectId, orgId }: { target: AssignTarget | null; onClose(): void; projectId: string; orgId: string }) {
  const qc = useQueryClient();
  const members = useOrgMembers(orgId);
  const annotators = useMemo(() => (members.data ?? []).filter((m) => roleCan(m.role, 'annotations.write')), [members.data]);
  const reviewers = useMemo(() => (members.data ?? []).filter((m) => roleCan(m.role, 'images.review')), [members.data]);
  const [mode, setMode] = useState<AnnotatorMode>('assign');
  const [chosen, setChosen] = useState<string[]>([]);
  const [reviewer, setReviewer] = useState('keep');
  const [overlap, setOverlap] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const open = target !== null;
  useEffect(() => {
    if (!open) return;
    setMode('assign');
    setChosen([]);
    setReviewer('keep');
    setOverlap(null);
    setError(null);
  }, [open]);

  const count = target ? (target.kind === 'selection' ? target.ids.length : target.count) : 0;
  const what = target?.kind === 'folder' ? `the ${plural(count)} in ${target.name}` : plural(count);
  // Several annotators per image take it from their queues: nobody is assigned to it.
  const shared = overlap !== null && overlap > 1;
  const annotatorMode: AnnotatorMode = shared ? 'keep' : mode;
  const assignee: AssigneeChoice = annotatorMode === 'keep' ? { kind: 'keep' } : annotatorMode === 'clear' ? { kind: 'clear' } : { kind: 'members', ids: chosen };
  const reviewerChoice: ReviewerChoice = reviewer === 'keep' ? { kind: 'keep' } : reviewer === 'none' ? { kind: 'clear' } : { kind: 'member', id: reviewer };
  const overlapChoice: OverlapChoice = overlap === null ? { kind: 'keep' } : { kind: 'set', annotators: overlap };
  const problem = overlapProblem(overlap, members.data ? annotators.length : undefined);
  const nothing = overlap === null && ((annotatorMode === 'assign' && chosen.length === 0 && reviewer === 'keep') || (annotatorMode === 'keep' && reviewer === 'keep'));
  const share = mode === 'assign' && chosen.length > 1 && count > 0 ? `About ${Math.floor(count / chosen.length).toLocaleString()}–${Math.ceil(count / chosen.length).toLocaleString()} each, shared round-robin.` : null;

  const submit = async () => {
    if (!target || nothing || problem || busy) return;
    setBusy(true);
    setError(null);
    try {
      const ids = target.kind === 'selection' ? target.ids : await folderImageIds(projectId, orgId, target.path);
      const plan = assignmentPlan(ids, annotatorMode === 'assign' && chosen.length === 0 ? { kind: 'keep' } : assignee, reviewerChoice, overlapChoice);
      let updated = 0;
      for (const call of plan) updated += (await workflowApi.assign(call, orgId)).updated;
      const names = annotatorMode === 'assign' && chosen.length ? chosen.map((id) => memberName(members.data, id)).join(', ') : null;
      toast(names ? `${plural(updated)} assigned to ${names}` : shared ? `${plural(updated)} ${updated === 1 ? 'goes' : 'each go'} to ${overlap} annotators` : `${plural(updated)} updated`, 'success', 4000);
      useDataView.getState().reload();
      void qc.invalidateQueries({ queryKey: projectKey(projectId) });
      onClose();
    } catch (err) {
      setError(serverMessage(err, "Couldn't assign the images. Please try again."));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (!next ? onClose() : undefined)}
      title={target?.kind === 'folder' ? `Assign folder ${target.name}` : `Assign ${plural(count)}`}
      icon={<UserCheck />}
      description={`Choose who annotates and who reviews ${what}. Their queue (Start working) gives them these images first.`}
      dismissible={!busy}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      footer={
        <>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy} busyLabel="Assigning..." disabled={nothing || Boolean(problem)}>
            Assign
          </Button>
        </>
      }
    >
      <OverlapField value={overlap} onChange={setOverlap} problem={problem} />
      {shared ? null : (
        <fieldset className={styles.assignGroup}>
          <legend className={styles.assignLegend}>Annotator</legend>
          <div className={styles.assignModes} role="radiogroup" aria-label="Annotator">
            {(
              [
                ['assign', 'Assign to'],
                ['keep', 'Leave as it is'],
                ['clear', 'Unassign'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className={styles.assignMode}>
                <input type="radio" name="assign-mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
                {label}
              </label>
            ))}
          </div>
          {mode === 'assign' ? (
            members.isPending ? (
              <p className={styles.assignHint}>Loading members...</p>
            ) : (
              <>
                <ul className={styles.memberList} aria-label="Members who annotate">
                  {annotators.map((m) => (
                    <li key={m.user_id}>
                      <label className={styles.memberRow}>
                        <input type="checkbox" checked={chosen.includes(m.user_id)} onChange={(e) => setChosen((c) => (e.target.checked ? [...c, m.user_id] : c.filter((id) => id !== m.user_id)))} />
                        <Avatar name={m.full_name || m.email} className={styles.memberAvatar} />
                        <span className={styles.memberName}>
                          {m.full_name || m.email}
                          {m.is_you ? ' (you)' : ''}
                        </span>
                        <span className={styles.memberRole}>{ROLE_LABEL[m.role]}</span>
                      </label>
                    </li>
                  ))}
                </ul>
                <p className={styles.assignHint}>{share ?? 'Choose several to share the images evenly among them.'}</p>
              </>
            )
          ) : null}
        </fieldset>
      )}
      <label className={styles.assignGroup}>
        <span className={styles.assignLegend}>Reviewer</span>
        <select className={styles.assignSelect} value={reviewer} onChange={(e) => setReviewer(e.target.value)} data-testid="assign-reviewer">
          <option value="keep">Leave as it is</option>
          <option value="none">No reviewer</option>
          {reviewers.map((m) => (
            <option key={m.user_id} value={m.user_id}>
              {m.full_name || m.email} ({ROLE_LABEL[m.role]})
            </option>
          ))}
        </select>
      </label>
      {error ? (
        <p className={styles.assignError} role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

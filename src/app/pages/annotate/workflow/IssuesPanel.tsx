// The issues panel over the editor's canvas (issue 29): the image's threads, open ones first then
// the resolved, each with its comments, a reply field and Resolve / Reopen; choosing one draws it
// red and centres its region. The form of a new issue (from I at the pointer, a dragged region, or
// New issue for the whole image) sits at the top. Members who may not write issues read them.
import { CheckCircle2, Crosshair, MapPin, MessageSquarePlus, RotateCcw, SquareDashed, X } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { MAX_COMMENT_LENGTH, type Issue, type Region } from '../../../../contract/workflow';
import { Avatar } from '../../../components/Avatar';
import { Button, IconButton } from '../../../components/Button';
import { Spinner } from '../../../components/Spinner';
import { formatRelativeDate } from '../../../lib/format';
import type { IssuesState } from './useIssues';
import styles from './Workflow.module.css';

const where = (region: Region | null) =>
  !region ? 'Whole image' : 'w' in region ? `Region ${Math.round(region.w)} × ${Math.round(region.h)} px` : `Point ${Math.round(region.x)}, ${Math.round(region.y)}`;

export function IssuesPanel({ state, writeDenied, onDragRegion, onClose }: { state: IssuesState; writeDenied: string | null; onDragRegion(): void; onClose(): void }) {
  const open = state.issues.filter((i) => i.status === 'open');
  const resolved = state.issues.filter((i) => i.status === 'resolved');
  // Numbered in the order they were opened, as the pins are talked about ("issue 2").
  const number = new Map(state.issues.map((i, k) => [i.id, k + 1]));
  return (
    <aside className={styles.panel} aria-label="Issues" data-testid="issues-panel">
      <header className={styles.panelHead}>
        <h2 className={styles.panelTitle}>
          Issues <span className={styles.panelCount}>{open.length} open</span>
        </h2>
        {writeDenied ? null : (
          <>
            <IconButton label="New issue on a region (Shift+I)" icon={<SquareDashed />} tooltipSide="bottom" onClick={onDragRegion} />
            <IconButton label="New issue on the whole image" icon={<MessageSquarePlus />} tooltipSide="bottom" onClick={() => state.startDraft(null)} />
          </>
        )}
        <IconButton label="Close the issues" icon={<X />} tooltipSide="bottom" onClick={onClose} />
      </header>
      <div className={styles.panelBody}>
        {state.composing ? <NewIssueForm state={state} /> : null}
        {state.loading ? (
          <div className={styles.panelNote}>
            <Spinner size="sm" /> Loading issues...
          </div>
        ) : state.error ? (
          <div className={styles.panelNote}>
            Couldn't load the issues.{' '}
            <Button size="sm" variant="ghost" onClick={state.retry}>
              Retry
            </Button>
          </div>
        ) : state.issues.length === 0 && !state.composing ? (
          <div className={styles.panelEmpty}>
            <MapPin aria-hidden="true" />
            <p>No issues on this image.</p>
            {writeDenied ? null : <p className={styles.muted}>Press I over the image to pin one at the pointer, or Shift+I to drag out a region.</p>}
          </div>
        ) : null}
        {open.map((i) => (
          <IssueThread key={i.id} issue={i} n={number.get(i.id)!} state={state} writeDenied={writeDenied} />
        ))}
        {resolved.length ? <h3 className={styles.sectionTitle}>Resolved ({resolved.length})</h3> : null}
        {resolved.map((i) => (
          <IssueThread key={i.id} issue={i} n={number.get(i.id)!} state={state} writeDenied={writeDenied} />
        ))}
      </div>
    </aside>
  );
}

function NewIssueForm({ state }: { state: IssuesState }) {
  const [body, setBody] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (body.trim()) void state.create(body).then((ok) => ok && setBody(''));
  };
  return (
    <form className={styles.newIssue} onSubmit={submit} data-testid="new-issue">
      <div className={styles.newIssueHead}>
        <Crosshair aria-hidden="true" />
        <span>New issue · {where(state.draft)}</span>
      </div>
      <label className="visually-hidden" htmlFor="new-issue-body">
        What should be fixed?
      </label>
      <textarea
        id="new-issue-body"
        className={styles.textarea}
        rows={3}
        autoFocus
        placeholder="What should be fixed?"
        value={body}
        maxLength={MAX_COMMENT_LENGTH}
        onChange={(e) => setBody(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') state.cancelDraft();
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
        }}
      />
      <div className={styles.formActions}>
        <Button size="sm" variant="ghost" onClick={state.cancelDraft}>
          Cancel
        </Button>
        <Button size="sm" variant="primary" type="submit" disabled={!body.trim()} busy={state.busy} busyLabel="Opening...">
          Open issue
        </Button>
      </div>
    </form>
  );
}

function IssueThread({ issue, n, state, writeDenied }: { issue: Issue; n: number; state: IssuesState; writeDenied: string | null }) {
  const focused = state.focusedId === issue.id;
  const [reply, setReply] = useState('');
  const send = (e: FormEvent) => {
    e.preventDefault();
    if (reply.trim()) void state.comment(issue, reply).then((ok) => ok && setReply(''));
  };
  const resolved = issue.status === 'resolved';
  return (
    <article className={styles.thread} data-focused={focused || undefined} data-status={issue.status} data-testid="issue-thread">
      <button type="button" className={styles.threadHead} onClick={() => state.focus(issue)} aria-label={`Issue ${n}: ${where(issue.region)}${issue.region ? '. Show it on the image' : ''}`}>
        <span className={styles.pinBadge} data-status={issue.status}>
          {n}
        </span>
        <span className={styles.threadWhere}>{where(issue.region)}</span>
        {resolved ? <span className={styles.resolvedTag}>Resolved</span> : null}
      </button>
      <ol className={styles.comments}>
        {issue.comments.map((c) => (
          <li key={c.id} className={styles.comment}>
            <Avatar name={c.by.name} className={styles.commentAvatar} />
            <div className={styles.commentMain}>
              <div className={styles.commentMeta}>
                <span className={styles.commentBy}>{c.by.name}</span>
                <time dateTime={c.at} title={new Date(c.at).toLocaleString()}>
                  {formatRelativeDate(c.at)}
                </time>
              </div>
              <p className={styles.commentBody}>{c.body}</p>
            </div>
          </li>
        ))}
      </ol>
      {writeDenied ? null : (
        <div className={styles.threadActions}>
          {focused && !resolved ? (
            <form className={styles.reply} onSubmit={send}>
              <label className="visually-hidden" htmlFor={`reply-${issue.id}`}>
                Reply to issue {n}
              </label>
              <textarea
                id={`reply-${issue.id}`}
                className={styles.textarea}
                rows={2}
                placeholder="Reply…"
                value={reply}
                maxLength={MAX_COMMENT_LENGTH}
                onChange={(e) => setReply(e.target.value)}
                onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && send(e)}
              />
              <Button size="sm" type="submit" disabled={!reply.trim()} busy={state.busy} busyLabel="Sending...">
                Comment
              </Button>
            </form>
          ) : null}
          <div className={styles.formActions}>
            {!focused && !resolved ? (
              <Button size="sm" variant="ghost" onClick={() => state.focus(issue)}>
                Reply
              </Button>
            ) : null}
            {resolved ? (
              <Button size="sm" variant="ghost" icon={<RotateCcw />} onClick={() => void state.setStatus(issue, 'open')} disabled={state.busy}>
                Reopen
              </Button>
            ) : (
              <Button size="sm" variant="secondary" icon={<CheckCircle2 />} onClick={() => void state.setStatus(issue, 'resolved')} disabled={state.busy}>
                Resolve
              </Button>
            )}
          </div>
        </div>
      )}
    </article>
  );
}

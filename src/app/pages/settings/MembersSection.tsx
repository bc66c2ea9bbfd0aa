// Settings > Members: who is in the organization and their roles; invites by email (a link to copy,
// mailed when the server has SMTP); changing roles, removing, leaving. The server enforces every
// rule (only owners touch owners, the last owner stays); this screen only offers what may work.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Copy, LogOut, MailPlus, UserMinus, Users } from 'lucide-react';
import type { Role } from '../../../contract/account';
import type { Member } from '../../../contract/teams';
import { INVITE_TTL_DAYS } from '../../../contract/teams';
import { serverMessage, teamApi } from '../../api/client';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { TextField } from '../../components/TextField';
import { formatRelativeDate } from '../../lib/format';
import { useCan } from '../../stores/permissions';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import { validateEmail } from '../../../contract/validation';
import { roleGuide } from '../../../contract/permissions';
import { Card, CardAlert, ListSkeleton, Meta, ROLE_LABEL, RoleSelect } from './parts';
import styles from './SettingsPage.module.css';

const LAST_OWNER_LEAVE = 'You are the last owner: make another member an owner before you leave';
const membersKey = (orgId: string) => ['members', orgId] as const;
const invitesKey = (orgId: string) => ['invites', orgId] as const;

export function MembersSection() {
  const org = useSession((s) => s.currentOrganization);
  const canManage = useCan('members.manage');
  if (!org) return <EmptyState icon={<Users />} tone="neutral" title="No organization" description="You are not a member of an organization yet." />;
  return (
    <>
      {canManage ? <InviteCard orgId={org.id} myRole={org.user_role} /> : null}
      <MembersCard orgId={org.id} orgName={org.name} myRole={org.user_role} canManage={canManage} />
      {canManage ? <PendingInvites orgId={org.id} /> : null}
    </>
  );
}

// Long because the members table, its role menus, removing and leaving share the organization's list.
function MembersCard({ orgId, orgName, myRole, canManage }: { orgId: string; orgName: string; myRole: Role; canManage: boolean }) {
  const qc = useQueryClient();
  const refreshProfile = useSession((s) => s.refreshProfile);
  const members = useQuery({ queryKey: membersKey(orgId), queryFn: async () => (await teamApi.listMembers(orgId)).members });
  const [busy, setBusy] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'remove' | 'leave'; member: Member } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const changeRole = async (m: Member, role: Role) => {
    setBusy(m.user_id);
    setError(null);
    try {
      await teamApi.changeRole(orgId, m.user_id, role);
      toast(`${m.full_name || m.email} is now ${ROLE_LABEL[role].toLowerCase()}`, 'success');
      await qc.invalidateQueries({ queryKey: membersKey(orgId) });
    } catch (err) {
      setError(serverMessage(err, 'Failed to change the role. Please try again.'));
    } finally {
      setBusy(null);
    }
  };

  const confirmAction = async () => {
    if (!confirm) return;
    const { kind, member } = confirm;
    setBusy(member.user_id);
    setError(null);
    try {
      if (kind === 'leave') {
        await teamApi.leave(orgId);
        setConfirm(null);
        toast(`You left ${orgName}`, 'success');
        await refreshProfile({ quiet: true });
        return;
      }
      await teamApi.removeMember(orgId, member.user_id);
      toast(`${member.full_name || member.email} was removed`, 'success');
      setConfirm(null);
      await qc.invalidateQueries({ queryKey: membersKey(orgId) });
    } catch (err) {
      setError(serverMessage(err, kind === 'leave' ? 'Failed to leave the organization. Please try again.' : 'Failed to remove the member. Please try again.'));
      setConfirm(null);
    } finally {
      setBusy(null);
    }
  };

  // The server keeps an owner (409 otherwise); the last one is told why before trying.
  const lastOwner = (members.data ?? []).filter((m) => m.role === 'owner').length <= 1;
  // Only owners touch owners; admins manage admins and below.
  const editable = (m: Member) => canManage && !m.is_you && (myRole === 'owner' || m.role !== 'owner');

  return (
    <Card
      title="Members"
      description={
        canManage
          ? 'People in this organization and their roles: change a role, or remove someone.'
          : `People in this organization and their roles. Owners and admins invite people and change roles; your role is ${ROLE_LABEL[myRole]}.`
      }
    >
      {error ? <CardAlert error={error} fallback="" /> : null}
      {members.isPending ? (
        <ListSkeleton rows={3} label="Loading members" />
      ) : members.isError ? (
        <CardAlert error={members.error} fallback="Failed to load members." onRetry={() => void members.refetch()} />
      ) : (
        <ul className={styles.list} aria-label="Members">
          {members.data.map((m) => (
            <li key={m.user_id} className={styles.item} data-testid="member-row">
              <div className={styles.itemMain}>
                <span className={styles.itemTitle}>
                  {m.full_name || m.email} {m.is_you ? <Badge>You</Badge> : null}
                </span>
                <Meta parts={[m.email, `joined ${formatRelativeDate(m.joined_at)}`]} />
              </div>
              <div className={styles.itemActions}>
                <span className={styles.roleSlot}>
                  {editable(m) ? (
                    <RoleSelect
                      id={`role-${m.user_id}`}
                      label={`Role of ${m.full_name || m.email}`}
                      hideLabel
                      size="sm"
                      value={m.role}
                      max={myRole}
                      disabled={busy === m.user_id}
                      onChange={(role) => void changeRole(m, role)}
                    />
                  ) : (
                    <Badge tone={m.role === 'owner' ? 'accent' : 'neutral'}>{ROLE_LABEL[m.role]}</Badge>
                  )}
                </span>
                <span className={styles.actionSlot}>
                  {m.is_you ? (
                    <Button size="sm" variant="ghost" icon={<LogOut />} disabledReason={m.role === 'owner' && lastOwner ? LAST_OWNER_LEAVE : null} onClick={() => setConfirm({ kind: 'leave', member: m })}>
                      Leave
                    </Button>
                  ) : editable(m) ? (
                    <Button size="sm" variant="dangerGhost" icon={<UserMinus />} aria-label={`Remove ${m.full_name || m.email}`} onClick={() => setConfirm({ kind: 'remove', member: m })}>
                      Remove
                    </Button>
                  ) : null}
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
      <RoleGuide />
      <Dialog
        open={confirm !== null}
        onOpenChange={(open) => (!open ? setConfirm(null) : undefined)}
        tone="danger"
        icon={confirm?.kind === 'leave' ? <LogOut /> : <UserMinus />}
        title={confirm?.kind === 'leave' ? `Leave ${orgName}?` : 'Remove member?'}
        description={
          confirm?.kind === 'leave'
            ? 'You will lose access to its projects at once. Someone with the right role must invite you to come back.'
            : `${confirm?.member.full_name || confirm?.member.email} will lose access at once, and their API keys for this organization stop working.`
        }
        dismissible={busy === null}
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirm(null)} disabled={busy !== null}>
              Cancel
            </Button>
            <Button variant="danger" busy={busy !== null} busyLabel={confirm?.kind === 'leave' ? 'Leaving...' : 'Removing...'} onClick={() => void confirmAction()}>
              {confirm?.kind === 'leave' ? 'Leave Organization' : 'Remove Member'}
            </Button>
          </>
        }
      />
    </Card>
  );
}

function InviteCard({ orgId, myRole }: { orgId: string; myRole: Role }) {
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('annotator');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [created, setCreated] = useState<{ url: string; email: string; emailSent: boolean } | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = validateEmail(email);
    setFieldError(problem);
    if (problem) return;
    setSending(true);
    setError(null);
    try {
      const res = await teamApi.createInvite(orgId, email.trim(), role);
      setCreated({ url: res.invite_url, email: res.invite.email, emailSent: res.email_sent });
      setEmail('');
      await qc.invalidateQueries({ queryKey: invitesKey(orgId) });
    } catch (err) {
      setError(serverMessage(err, 'Failed to create the invite. Please try again.'));
    } finally {
      setSending(false);
    }
  };

  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.url);
      toast('Invite link copied', 'success');
    } catch {
      toast('Copy failed: select the link and copy it', 'danger');
    }
  };

  return (
    <Card title="Invite people" description={`They join with the role you choose. The link works once, only for that address, for ${INVITE_TTL_DAYS} days.`}>
      <form className={styles.form} onSubmit={(e) => void submit(e)} noValidate>
        <TextField label="Email address" type="email" value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError} placeholder="colleague@company.com" autoComplete="off" />
        <RoleSelect id="invite-role" label="Role" value={role} max={myRole} onChange={setRole} />
        <span className={styles.formAction}>
          <Button type="submit" variant="primary" icon={<MailPlus />} busy={sending} busyLabel="Inviting..." disabled={!email.trim()}>
            Invite
          </Button>
        </span>
      </form>
      {error ? <CardAlert error={error} fallback="" /> : null}
      <Dialog
        open={created !== null}
        onOpenChange={(open) => (!open ? setCreated(null) : undefined)}
        icon={<MailPlus />}
        title="Invite created"
        description={created?.emailSent ? `We emailed the link to ${created.email}. You can also copy it.` : `Send this link to ${created?.email}. It is shown only now.`}
        wide
        footer={
          <Button variant="primary" onClick={() => setCreated(null)}>
            Done
          </Button>
        }
      >
        <div className={styles.secret}>
          <code data-testid="invite-link">{created?.url}</code>
          <Button size="sm" icon={<Copy />} onClick={() => void copy()}>
            Copy link
          </Button>
        </div>
        <p className={styles.note}>They sign in (or sign up) with {created?.email}, then open the link to join.</p>
      </Dialog>
    </Card>
  );
}

function PendingInvites({ orgId }: { orgId: string }) {
  const qc = useQueryClient();
  const invites = useQuery({ queryKey: invitesKey(orgId), queryFn: async () => (await teamApi.listInvites(orgId)).invites });
  const [busy, setBusy] = useState<string | null>(null);
  const withdraw = async (id: string) => {
    setBusy(id);
    try {
      await teamApi.revokeInvite(orgId, id);
      toast('Invite withdrawn', 'success');
      await qc.invalidateQueries({ queryKey: invitesKey(orgId) });
    } catch (err) {
      toast(serverMessage(err, 'Failed to withdraw the invite'), 'danger');
    } finally {
      setBusy(null);
    }
  };
  if (invites.isPending || invites.isError || invites.data.length === 0) return null;
  return (
    <Card title="Pending invites" description="Invites not yet accepted.">
      <ul className={styles.list} aria-label="Pending invites">
        {invites.data.map((i) => (
          <li key={i.id} className={styles.item}>
            <div className={styles.itemMain}>
              <span className={styles.itemTitle}>{i.email}</span>
              <Meta parts={[ROLE_LABEL[i.role], i.status === 'expired' ? 'expired' : `expires ${new Date(i.expires_at).toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' })}`, i.invited_by ? `invited by ${i.invited_by}` : null].filter(Boolean)} />
            </div>
            <div className={styles.itemActions}>
              {i.status === 'expired' ? <Badge tone="warning">Expired</Badge> : null}
              <Button size="sm" variant="ghost" busy={busy === i.id} busyLabel="Withdrawing..." onClick={() => void withdraw(i.id)} aria-label={`Withdraw the invite for ${i.email}`}>
                Withdraw
              </Button>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** What each role may do, from the permission table the server enforces: each role with what it adds to the one before. */
function RoleGuide() {
  const guide = roleGuide();
  return (
    <details className={styles.roleGuide}>
      <summary>What each role may do</summary>
      <dl>
        {guide.map(({ role, adds }, i) => {
          const before = i > 0 ? ROLE_LABEL[guide[i - 1]!.role].toLowerCase() : null;
          const lead = before ? `Everything ${/^[aeiou]/.test(before) ? 'an' : 'a'} ${before} may, and: ` : 'May: ';
          return (
            <div key={role}>
              <dt>{ROLE_LABEL[role]}</dt>
              <dd>
                {lead}
                {adds.join('; ')}.
              </dd>
            </div>
          );
        })}
      </dl>
    </details>
  );
}

// Settings > Account: who you are, and Delete Account (spec sections 2, 8; issue 6). Deleting
// deactivates at once and signs out; signing in again within 30 days reactivates. The dialog says,
// organization by organization, what deleting will do (from their member lists, by the rules of
// services/account.ts; the server still decides and explains a refusal).
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Trash2, UserRound } from 'lucide-react';
import type { Organization } from '../../../contract/account';
import { ACCOUNT_GRACE_DAYS, type Member } from '../../../contract/teams';
import { isApiError, teamApi } from '../../api/client';
import { Skeleton, SkeletonGroup } from '../../components/Skeleton';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { useSession } from '../../stores/session';
import { Card, Row } from './parts';
import styles from './SettingsPage.module.css';

interface Outcome {
  org: Organization;
  text: string;
  /** Nobody else could own it: the server would refuse the deletion. */
  blocked: boolean;
}

/** What deleting the account does to one organization (services/account.ts deleteAccount's plan). */
function outcomeOf(org: Organization, members: Member[]): Outcome {
  const others = members.filter((m) => !m.is_you);
  if (!others.length) return { org, text: 'You are its only member: it is deleted with its projects and files.', blocked: false };
  if (org.user_role === 'owner' && !others.some((m) => m.role === 'owner')) {
    const admin = others.find((m) => m.role === 'admin');
    if (!admin) return { org, text: 'You are its only owner and it has no admin to take over: make another member an admin or owner first.', blocked: true };
    return { org, text: `You leave it, and ${admin.full_name || admin.email} becomes its owner.`, blocked: false };
  }
  return { org, text: 'You leave it; it stays with its other members.', blocked: false };
}

function DeletionPlan({ outcomes, pending }: { outcomes: Outcome[] | undefined; pending: boolean }) {
  if (pending) {
    return (
      <SkeletonGroup className={styles.plan} label="Checking your organizations">
        <Skeleton className={styles.skeletonTitle} />
        <Skeleton className={styles.skeletonMeta} />
      </SkeletonGroup>
    );
  }
  if (!outcomes?.length) return null;
  return (
    <ul className={styles.plan} aria-label="Your organizations">
      {outcomes.map((o) => (
        <li key={o.org.id} className={o.blocked ? styles.planBlocked : undefined}>
          <strong>{o.org.name}</strong> {o.text}
        </li>
      ))}
    </ul>
  );
}

export function AccountSection() {
  const profile = useSession((s) => s.profile);
  const user = useSession((s) => s.user);
  const signOut = useSession((s) => s.signOut);
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const organizations = useSession((s) => s.organizations);
  const plan = useQuery({
    queryKey: ['deletion-plan', organizations.map((o) => o.id)],
    enabled: open,
    staleTime: 0,
    queryFn: () => Promise.all(organizations.map(async (org) => outcomeOf(org, (await teamApi.listMembers(org.id)).members))),
  });
  const blocked = plan.data?.filter((o) => o.blocked) ?? [];

  const remove = async () => {
    setBusy(true);
    setError(null);
    let message: string;
    try {
      message = (await teamApi.deleteAccount()).message;
    } catch (err) {
      setBusy(false);
      // The server's reason (for example an organization nobody else could own), else the spec's words.
      if (isApiError(err)) setError(err.error ?? 'Failed to delete account');
      else setError('An unexpected error occurred while deleting your account');
      return;
    }
    window.alert(message);
    // Signing in again (to reactivate) lands on the projects page, where the reactivation message shows.
    navigate('/select', { replace: true });
    await signOut();
  };

  return (
    <>
      <Card title="Account" description="Your sign-in identity.">
        <dl className={styles.rows}>
          <Row label="Email">{profile?.email ?? user?.email}</Row>
          <Row label="Full name">{profile?.full_name || <span className={styles.muted}>Not set</span>}</Row>
        </dl>
      </Card>
      <Card title="Delete account" description="Deactivate your account at once and sign out.">
        <div className={styles.dangerZone}>
          <p className={styles.note}>Changed your mind? Sign in again within {ACCOUNT_GRACE_DAYS} days and everything comes back.</p>
          <Button variant="danger" icon={<Trash2 />} onClick={() => { setError(null); setOpen(true); }}>
            Delete Account
          </Button>
        </div>
      </Card>
      <Dialog
        open={open}
        onOpenChange={(next) => (!busy ? setOpen(next) : undefined)}
        tone="danger"
        icon={<UserRound />}
        title="Delete Account Permanently"
        description="This signs you out everywhere and stops your API keys."
        dismissible={!busy}
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={busy}>
              Cancel
            </Button>
            <Button
              variant="danger"
              busy={busy}
              busyLabel="Deleting..."
              disabledReason={blocked.length ? `Someone else must be able to own ${blocked.map((o) => o.org.name).join(', ')} first` : null}
              onClick={() => void remove()}
            >
              Delete Account
            </Button>
          </>
        }
      >
        <DeletionPlan outcomes={plan.isError ? undefined : plan.data} pending={plan.isPending && organizations.length > 0} />
        <ul className={styles.consequences}>
          {plan.isError ? (
            <>
              <li>Organizations where you are the only member are scheduled for deletion with their projects and files.</li>
              <li>Organizations with other members stay with them; if you are their last owner, their earliest admin becomes owner.</li>
            </>
          ) : null}
          <li>Final billing is calculated for each of your organizations.</li>
          <li>Sign in again within {ACCOUNT_GRACE_DAYS} days to reactivate; after that, everything is purged.</li>
        </ul>
        {error ? <Banner tone="danger">{error}</Banner> : null}
      </Dialog>
    </>
  );
}

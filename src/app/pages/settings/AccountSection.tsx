// Settings > Account: who you are, and Delete Account (spec sections 2, 8; issue 6). Deleting
// deactivates at once and signs out; signing in again within 30 days reactivates.
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Trash2, UserRound } from 'lucide-react';
import { ACCOUNT_GRACE_DAYS } from '../../../contract/teams';
import { isApiError, teamApi } from '../../api/client';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { useSession } from '../../stores/session';
import { Card, Row } from './parts';
import styles from './SettingsPage.module.css';

export function AccountSection() {
  const profile = useSession((s) => s.profile);
  const user = useSession((s) => s.user);
  const signOut = useSession((s) => s.signOut);
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

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
            <Button variant="danger" busy={busy} busyLabel="Deleting..." onClick={() => void remove()}>
              Delete Account
            </Button>
          </>
        }
      >
        <ul className={styles.consequences}>
          <li>Organizations where you are the only member are scheduled for deletion with their projects and files.</li>
          <li>Organizations with other members stay with them; if you are their last owner, their earliest admin becomes owner.</li>
          <li>Final billing is calculated for each of your organizations.</li>
          <li>Sign in again within {ACCOUNT_GRACE_DAYS} days to reactivate; after that, everything is purged.</li>
        </ul>
        {error ? <Banner tone="danger">{error}</Banner> : null}
      </Dialog>
    </>
  );
}

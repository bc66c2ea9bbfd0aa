// /invite/<token> (issue 6): accepting an invite after signing in. Signed-out visitors see the
// authentication page first (the URL stays), new users sign up and land here without onboarding.
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { CircleAlert, MailCheck, UserRoundX } from 'lucide-react';
import { isApiError, serverMessage, teamApi } from '../../api/client';
import { Button } from '../../components/Button';
import { EmptyState } from '../../components/EmptyState';
import { FullPageLoading, FullPageMessage } from '../../components/FullPage';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import styles from './InvitePage.module.css';

const ROLE_WORD: Record<string, string> = { owner: 'an owner', admin: 'an admin', reviewer: 'a reviewer', annotator: 'an annotator', viewer: 'a viewer' };

// Long because the page shows each outcome of an invite (loading, not found, expired, used or
// withdrawn, accept, accepted), each a few lines of layout sharing the preview query.
export function InvitePage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const email = useSession((s) => s.profile?.email ?? s.user?.email ?? '');
  const refreshProfile = useSession((s) => s.refreshProfile);
  const signOut = useSession((s) => s.signOut);
  const [accepting, setAccepting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const preview = useQuery({ queryKey: ['invite', token], queryFn: () => teamApi.previewInvite(token), retry: false });
  useDocumentTitle('Invitation');

  const accept = async () => {
    setAccepting(true);
    setError(null);
    try {
      const res = await teamApi.acceptInvite(token);
      await refreshProfile({ quiet: true });
      useSession.getState().setCurrentOrganization(res.organization.id);
      toast(`You joined ${res.organization.name}`, 'success');
      navigate('/select', { replace: true });
    } catch (err) {
      setError(serverMessage(err, 'Failed to accept the invite. Please try again.'));
      setAccepting(false);
    }
  };

  if (preview.isPending) return <FullPageLoading text="Loading invite..." />;
  const home = (
    <Button variant="secondary" onClick={() => navigate('/select', { replace: true })}>
      Go to Vellum
    </Button>
  );
  if (preview.isError) {
    // A link that is not an invite (400, 404) vs. a load that failed (and may work again).
    const invalid = isApiError(preview.error) && (preview.error.status === 404 || preview.error.status === 400);
    return (
      <FullPageMessage>
        <EmptyState
          bordered={false}
          tone="danger"
          icon={<CircleAlert />}
          title={invalid ? 'Invite not found' : "The invite didn't load"}
          description={invalid ? 'This invite link is not valid. Check that you copied all of it, or ask for a new one.' : serverMessage(preview.error, 'Vellum could not load this invite. Please try again.')}
          role="alert"
          action={
            invalid ? (
              home
            ) : (
              <>
                {home}
                <Button variant="primary" busy={preview.isFetching} busyLabel="Loading..." onClick={() => void preview.refetch()}>
                  Try again
                </Button>
              </>
            )
          }
        />
      </FullPageMessage>
    );
  }
  const inv = preview.data;
  if (inv.already_member) {
    return (
      <FullPageMessage>
        <EmptyState bordered={false} icon={<MailCheck />} title={`You are a member of ${inv.organization_name}`} description="Nothing more to do here." action={home} />
      </FullPageMessage>
    );
  }
  if (inv.status !== 'pending') {
    const why = inv.status === 'expired' ? 'This invite has expired.' : inv.status === 'accepted' ? 'This invite has already been used.' : 'This invite was withdrawn.';
    return (
      <FullPageMessage>
        <EmptyState bordered={false} tone="danger" icon={<CircleAlert />} title="This invite can no longer be used" description={`${why} Ask someone at ${inv.organization_name} for a new one.`} role="alert" action={home} />
      </FullPageMessage>
    );
  }
  if (!inv.for_you) {
    return (
      <FullPageMessage>
        <EmptyState
          bordered={false}
          tone="danger"
          icon={<UserRoundX />}
          title="This invite is for someone else"
          description={`It was sent to ${inv.email}, and you are signed in as ${email}. Sign in with ${inv.email} to accept it.`}
          role="alert"
          action={
            <>
              {home}
              <Button variant="primary" onClick={() => void signOut()}>
                Sign Out
              </Button>
            </>
          }
        />
      </FullPageMessage>
    );
  }
  return (
    <FullPageMessage>
      <EmptyState
        bordered={false}
        icon={<MailCheck />}
        title={`Join ${inv.organization_name}`}
        description={
          <>
            {inv.invited_by ? `${inv.invited_by} invited you` : 'You are invited'} to join as {ROLE_WORD[inv.role] ?? inv.role}.
            <span className={styles.details}>
              For {inv.email} · expires {new Date(inv.expires_at).toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' })}
            </span>
            {error ? (
              <span role="alert" className={styles.error}>
                {error}
              </span>
            ) : null}
          </>
        }
        action={
          <>
            <Button variant="secondary" onClick={() => navigate('/select', { replace: true })} disabled={accepting}>
              Not Now
            </Button>
            <Button variant="primary" busy={accepting} busyLabel="Joining..." onClick={() => void accept()} autoFocus>
              Accept Invite
            </Button>
          </>
        }
      />
    </FullPageMessage>
  );
}

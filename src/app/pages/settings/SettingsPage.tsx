// Settings page (spec section 2): Organization, Members, Usage, Account and API Keys sections.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router-dom';
import { BarChart3, Bug, Building, Database, KeyRound, UserRound, Users, Wrench } from 'lucide-react';
import type { z } from 'zod';
import type { DebugResponse } from '../../../contract/account';
import { api, serverMessage } from '../../api/client';
import { Badge } from '../../components/Badge';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { Page, PageHeader } from '../../components/Page';
import { Spinner } from '../../components/Spinner';
import { formatBytes, formatTier } from '../../lib/format';
import { useSession } from '../../stores/session';
import { ROLE_LABEL, useDenied } from '../../stores/permissions';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { AccountSection } from './AccountSection';
import { ApiKeysSection } from './ApiKeysSection';
import { MembersSection } from './MembersSection';
import { UsageSection } from './UsageSection';
import { Card, Row } from './parts';
import styles from './SettingsPage.module.css';

type Section = 'organization' | 'members' | 'usage' | 'account' | 'api-keys';
const SECTIONS: { id: Section; label: string; icon: ReactNode }[] = [
  { id: 'organization', label: 'Organization', icon: <Building /> },
  { id: 'members', label: 'Members', icon: <Users /> },
  { id: 'usage', label: 'Usage', icon: <BarChart3 /> },
  { id: 'account', label: 'Account', icon: <UserRound /> },
  { id: 'api-keys', label: 'API Keys', icon: <KeyRound /> },
];

export function SettingsPage() {
  // The section is in the URL (?section=members), so it can be linked to and survives a reload.
  const [params, setParams] = useSearchParams();
  const asked = params.get('section');
  const section: Section = SECTIONS.some((s) => s.id === asked) ? (asked as Section) : 'organization';
  const setSection = (id: Section) => setParams(id === 'organization' ? {} : { section: id }, { replace: true });
  useDocumentTitle('Settings');
  return (
    <Page>
      <PageHeader title="Settings" meta={<span>Manage your organization, its members, your account and API access.</span>} />
      <div className={styles.layout}>
        <nav className={styles.nav} aria-label="Settings sections">
          {SECTIONS.map((s) => (
            <button
              key={s.id}
              type="button"
              className={styles.navItem}
              aria-current={section === s.id ? 'page' : undefined}
              onClick={() => setSection(s.id)}
            >
              <span aria-hidden="true">{s.icon}</span>
              {s.label}
            </button>
          ))}
        </nav>
        <div className={styles.content}>
          {section === 'organization' ? <OrganizationSection /> : null}
          {section === 'members' ? <MembersSection /> : null}
          {section === 'usage' ? <UsageSection /> : null}
          {section === 'account' ? <AccountSection /> : null}
          {section === 'api-keys' ? <ApiKeysSection /> : null}
        </div>
      </div>
    </Page>
  );
}

function OrganizationSection() {
  const org = useSession((s) => s.currentOrganization);
  const profile = useSession((s) => s.profile);
  const user = useSession((s) => s.user);
  const [fixing, setFixing] = useState(false);
  const [fixError, setFixError] = useState<string | null>(null);
  const [debugOpen, setDebugOpen] = useState(false);
  const cannotFix = useDenied('org.manage', 'repair storage');

  if (!org) {
    return <EmptyState icon={<Building />} tone="neutral" title="No organization" description="You are not a member of an organization yet." />;
  }

  const fix = async () => {
    setFixing(true);
    setFixError(null);
    try {
      const res = await api.fixBucket(org.id);
      if (!res.success) throw new Error(res.message);
      window.location.reload();
    } catch (_err) {
      setFixError('Failed to fix storage configuration. Please try again.');
      setFixing(false);
    }
  };

  return (
    <>
      {!org.gcs_bucket_name ? (
        <Banner
          tone="warning"
          title="Storage Not Configured"
          actions={
            <>
              <Button variant="primary" size="sm" icon={<Wrench />} busy={fixing} busyLabel="Fixing..." onClick={() => void fix()} disabledReason={cannotFix}>
                Fix Storage Configuration
              </Button>
              <Button variant="secondary" size="sm" icon={<Bug />} onClick={() => setDebugOpen(true)} disabled={fixing}>
                Debug
              </Button>
            </>
          }
        >
          This organization has no storage bucket yet, so images cannot be uploaded.
          {fixError ? <span className={styles.fixError} role="alert">{fixError}</span> : null}
        </Banner>
      ) : null}
      <Card
        title="Organization"
        description="The workspace your projects belong to."
        actions={
          org.gcs_bucket_name ? (
            <Button variant="secondary" size="sm" icon={<Bug />} onClick={() => setDebugOpen(true)}>
              Storage diagnostics
            </Button>
          ) : null
        }
      >
        <dl className={styles.rows}>
          <Row label="Name">{org.name}</Row>
          <Row label="Plan">
            <Badge tone="accent">{formatTier(org.subscription_tier)}</Badge>
          </Row>
          <Row label="Identifier">
            <code className={styles.code}>{org.slug}</code>
          </Row>
          <Row label="Your role">
            {ROLE_LABEL[org.user_role]}
          </Row>
          <Row label="Storage bucket">
            {org.gcs_bucket_name ? (
              <code className={styles.code}>{org.gcs_bucket_name}</code>
            ) : (
              <Badge tone="warning">Not configured</Badge>
            )}
          </Row>
        </dl>
      </Card>
      <Card title="You" description="How you appear to your organization.">
        <dl className={styles.rows}>
          <Row label="Email">{profile?.email ?? user?.email}</Row>
          <Row label="Full name">{profile?.full_name || <span className={styles.muted}>Not set</span>}</Row>
        </dl>
      </Card>
      <DebugDialog open={debugOpen} onOpenChange={setDebugOpen} organizationId={org.id} />
    </>
  );
}

function DebugDialog({ open, onOpenChange, organizationId }: { open: boolean; onOpenChange(open: boolean): void; organizationId: string }) {
  const [state, setState] = useState<{ status: 'idle' | 'loading' | 'done' | 'error'; data?: z.infer<typeof DebugResponse>; error?: string }>({ status: 'idle' });

  const run = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const data = await api.debugOrganization(organizationId);
      setState({ status: 'done', data });
    } catch (err) {
      setState({ status: 'error', error: serverMessage(err, 'Failed to run storage diagnostics. Please try again.') });
    }
  }, [organizationId]);

  useEffect(() => {
    if (open) void run();
  }, [open, run]);

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      wide
      icon={<Database />}
      title="Storage diagnostics"
      description="What the server sees for this organization's storage."
      footer={
        <>
          <Button variant="secondary" onClick={() => void run()} busy={state.status === 'loading'} busyLabel="Checking...">
            Run again
          </Button>
          <Button variant="primary" onClick={() => onOpenChange(false)}>
            Done
          </Button>
        </>
      }
    >
      <DebugBody state={state} />
    </Dialog>
  );
}

function DebugBody({ state }: { state: { status: string; data?: z.infer<typeof DebugResponse>; error?: string } }) {
  if (state.status === 'idle' || state.status === 'loading') {
    return (
      <div className={styles.debugLoading} role="status">
        <Spinner size="sm" /> Checking storage...
      </div>
    );
  }
  if (state.status === 'error' || !state.data) return <Banner tone="danger">{state.error}</Banner>;
  const d = state.data;
  return (
    <>
      {d.problems.length ? (
        <Banner tone="warning" title={`${d.problems.length} problem${d.problems.length === 1 ? '' : 's'} found`}>
          <ul className={styles.problems}>
            {d.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </Banner>
      ) : (
        <Banner tone="success">No problems found.</Banner>
      )}
      <dl className={`${styles.rows} ${styles.debugRows}`}>
        <Row label="Organization ID">
          <code className={styles.code}>{d.organization_id}</code>
        </Row>
        <Row label="Identifier">
          <code className={styles.code}>{d.slug}</code>
        </Row>
        <Row label="Bucket">{d.bucket ? <code className={styles.code}>{d.bucket}</code> : <Badge tone="warning">None</Badge>}</Row>
        <Row label="Expected bucket">
          <code className={styles.code}>{d.expected_bucket}</code>
        </Row>
        <Row label="Storage driver">{d.storage_driver === 'local' ? 'Local files' : 'S3-compatible'}</Row>
        <Row label="Bucket exists">{d.bucket_exists ? <Badge tone="success">Yes</Badge> : <Badge tone="warning">No</Badge>}</Row>
        <Row label="Objects (sample)">
          <span className="tabular">{d.object_count_sample}</span>
        </Row>
      </dl>
      {d.sample_objects.length ? (
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">Sample object</th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {d.sample_objects.map((o) => (
              <tr key={o.key}>
                <td>
                  <code className={styles.code}>{o.key}</code>
                </td>
                <td className="tabular">{formatBytes(o.size)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

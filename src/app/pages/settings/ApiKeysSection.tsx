// Settings > API Keys (spec section 2, made real by issue 6): create (name required), the display
// modal that shows the key once, the list, delete with the spec's confirmation. Keys are made and
// checked by the server; it keeps only their hash.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Copy, KeyRound, Plus, Trash2 } from 'lucide-react';
import type { Role } from '../../../contract/account';
import { API_KEY_NAME_REQUIRED, type ApiKey } from '../../../contract/teams';
import { serverMessage, teamApi } from '../../api/client';
import { Badge } from '../../components/Badge';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { TextField } from '../../components/TextField';
import { formatRelativeDate } from '../../lib/format';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import { Card, CardAlert, ListSkeleton, Meta, ROLE_LABEL, RoleSelect } from './parts';
import styles from './SettingsPage.module.css';

const keysKey = (orgId: string) => ['api-keys', orgId] as const;

export function ApiKeysSection() {
  const org = useSession((s) => s.currentOrganization);
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>(org?.user_role ?? 'viewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ key: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const keys = useQuery({ queryKey: keysKey(org?.id ?? ''), queryFn: async () => (await teamApi.listApiKeys(org!.id)).api_keys, enabled: Boolean(org) });

  if (!org) return <EmptyState icon={<KeyRound />} tone="neutral" title="No organization" description="API keys belong to an organization." />;

  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      window.alert(API_KEY_NAME_REQUIRED);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await teamApi.createApiKey(org.id, name.trim(), role);
      setCreating(false);
      setName('');
      setShown({ key: res.key, name: res.api_key.name });
      await qc.invalidateQueries({ queryKey: keysKey(org.id) });
    } catch (err) {
      setError(serverMessage(err, 'Failed to create the API key. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  // The form starts from the member's role as it is now (it may have changed since the last key).
  const openCreate = () => {
    setName('');
    setRole(org.user_role);
    setError(null);
    setCreating(true);
  };

  return (
    <Card
      title="API Keys"
      description={`Keys for scripts and integrations: send one as "Authorization: Bearer <key>". A key acts in ${org.name} with the role you give it, never above yours.`}
      actions={
        <Button variant="primary" size="sm" icon={<Plus />} onClick={openCreate}>
          Create API Key
        </Button>
      }
    >
      {keys.isPending ? (
        <ListSkeleton rows={2} label="Loading API keys" />
      ) : keys.isError ? (
        <CardAlert error={keys.error} fallback="Failed to load API keys." onRetry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <EmptyState
          bordered={false}
          tone="neutral"
          icon={<KeyRound />}
          title="No API keys yet"
          description="Create a key (top right) to call the Vellum API from your scripts."
        />
      ) : (
        <ApiKeyList keys={keys.data} onDelete={setDeleting} />
      )}

      <Dialog
        open={creating}
        onOpenChange={(open) => (!busy ? setCreating(open) : undefined)}
        icon={<KeyRound />}
        title="Create API Key"
        description="Name it after what will use it, so you know which one to delete later."
        onSubmit={(e) => void create(e)}
        dismissible={!busy}
        footer={
          <>
            <Button variant="secondary" onClick={() => setCreating(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" busy={busy} busyLabel="Creating...">
              Create Key
            </Button>
          </>
        }
      >
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Nightly import" autoFocus maxLength={100} />
        <RoleSelect id="api-key-role" label="Role" value={role} max={org.user_role} onChange={setRole} />
        <p className={styles.note}>The key may do what this role may in {org.name}, and drops with you if your role does.</p>
        {error ? <Banner tone="danger">{error}</Banner> : null}
      </Dialog>

      <NewKeyDialog shown={shown} onClose={() => setShown(null)} />

      <DeleteApiKeyDialog orgId={org.id} apiKey={deleting} onClose={() => setDeleting(null)} />
    </Card>
  );
}

function ApiKeyList({ keys, onDelete }: { keys: ApiKey[]; onDelete(key: ApiKey): void }) {
  return (
    <ul className={styles.list} aria-label="API keys">
      {keys.map((k) => (
        <li key={k.id} className={styles.item}>
          <div className={styles.itemMain}>
            <span className={styles.itemTitle}>{k.name}</span>
            <Meta
              parts={[
                <code key="prefix" className={styles.code}>{k.prefix}…</code>,
                `created ${formatRelativeDate(k.created_at)}`,
                k.created_by ? `by ${k.created_by}` : null,
                k.last_used_at ? `last used ${formatRelativeDate(k.last_used_at)}` : 'never used',
              ].filter(Boolean)}
            />
          </div>
          <div className={styles.itemActions}>
            <Badge>{ROLE_LABEL[k.role]}</Badge>
            <Button size="sm" variant="dangerGhost" icon={<Trash2 />} aria-label={`Delete API key ${k.name}`} onClick={() => onDelete(k)}>
              Delete
            </Button>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The modal that shows a new key once, with a copy button. */
function NewKeyDialog({ shown, onClose }: { shown: { key: string; name: string } | null; onClose(): void }) {
  const copy = async () => {
    if (!shown) return;
    try {
      await navigator.clipboard.writeText(shown.key);
      toast('API key copied', 'success');
    } catch {
      toast('Copy failed: select the key and copy it', 'danger');
    }
  };

  return (
    <Dialog
      open={shown !== null}
      onOpenChange={(open) => (!open ? onClose() : undefined)}
      icon={<KeyRound />}
      title="Your new API key"
      description={`Copy “${shown?.name}” now: it is shown only once.`}
      wide
      footer={
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      <div className={styles.secret}>
        <code data-testid="api-key-value">{shown?.key}</code>
        <Button size="sm" icon={<Copy />} onClick={() => void copy()}>
          Copy
        </Button>
      </div>
    </Dialog>
  );
}

/** The spec's confirmation before a key is deleted. */
function DeleteApiKeyDialog({ orgId, apiKey, onClose }: { orgId: string; apiKey: ApiKey | null; onClose(): void }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);

  const remove = async () => {
    if (!apiKey) return;
    setBusy(true);
    try {
      await teamApi.deleteApiKey(apiKey.id);
      toast(`API key “${apiKey.name}” deleted`, 'success');
      onClose();
      await qc.invalidateQueries({ queryKey: keysKey(orgId) });
    } catch (err) {
      toast(serverMessage(err, 'Failed to delete the API key'), 'danger');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={apiKey !== null}
      onOpenChange={(open) => (!open && !busy ? onClose() : undefined)}
      tone="danger"
      icon={<Trash2 />}
      title="Delete API key"
      description="Are you sure you want to delete this API key? This action cannot be undone."
      dismissible={!busy}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} busyLabel="Deleting..." onClick={() => void remove()}>
            Delete
          </Button>
        </>
      }
    />
  );
}

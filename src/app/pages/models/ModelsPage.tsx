// Models page (spec section 2): a placeholder with the organization, its tier and an add button.
import { BrainCircuit, Plus } from 'lucide-react';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { EmptyState } from '../../components/EmptyState';
import { Page, PageHeader } from '../../components/Page';
import { formatTier } from '../../lib/format';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';

export function ModelsPage() {
  const org = useSession((s) => s.currentOrganization);
  useDocumentTitle('Models');
  return (
    <Page>
      <PageHeader
        eyebrow={<span>{org?.name}</span>}
        title="Models"
        meta={<Badge tone="accent">{formatTier(org?.subscription_tier)} plan</Badge>}
        actions={
          <Button variant="primary" icon={<Plus />} onClick={() => toast('Custom models are coming soon')}>
            Add Model
          </Button>
        }
      />
      <EmptyState
        icon={<BrainCircuit />}
        title="AI Models... Coming Soon"
        description="Connect your own models to pre-annotate images across your projects."
      />
    </Page>
  );
}

// Onboarding (spec sections 2, 4, 5, 8): creates the user's first organization.
import { useState, type FormEvent } from 'react';
import { Building, Check, Database, FolderKanban, LogOut, ShieldCheck, UserRound, Users } from 'lucide-react';
import { MESSAGES, bucketNameFor, slugify, validateSlug } from '../../../contract/validation';
import { api, isApiError, serverMessage } from '../../api/client';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Logo } from '../../components/Logo';
import { TextField } from '../../components/TextField';
import { useSession } from '../../stores/session';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import styles from './OnboardingPage.module.css';

type Field = 'fullName' | 'orgName' | 'slug';

const BENEFITS = [
  { icon: <Database />, title: 'Private storage', text: 'Your own bucket keeps the organization’s images separate.' },
  { icon: <FolderKanban />, title: 'A project per dataset', text: 'Organise images by project, with folders and classes.' },
  { icon: <Users />, title: 'Built for teams', text: 'Everyone in the organization works on the same projects.' },
  { icon: <ShieldCheck />, title: 'You own it', text: 'You are the owner: plan, storage and settings are yours.' },
];

function validate(field: Field, value: string): string | undefined {
  if (field === 'fullName') return value.trim() ? undefined : MESSAGES.fullNameRequired;
  if (field === 'orgName') return value.trim() ? undefined : MESSAGES.orgNameRequired;
  return validateSlug(value) ?? undefined;
}

function TopBar({ email, onSignOut }: { email: string | null | undefined; onSignOut(): void }) {
  return (
    <header className={styles.topbar}>
      <Logo size="sm" />
      <div className={styles.account}>
        <span className={styles.accountEmail}>{email}</span>
        <Button variant="ghost" size="sm" icon={<LogOut />} onClick={onSignOut}>
          Sign Out
        </Button>
      </div>
    </header>
  );
}

function Benefits() {
  return (
    <aside className={styles.benefits} aria-label="What you get">
      <h2 className={styles.benefitsTitle}>What you get</h2>
      <ul>
        {BENEFITS.map((b) => (
          <li key={b.title} className={styles.benefit}>
            <span className={styles.benefitIcon} aria-hidden="true">
              {b.icon}
            </span>
            <div>
              <h3>{b.title}</h3>
              <p>{b.text}</p>
            </div>
          </li>
        ))}
      </ul>
      <p className={styles.note}>
        <Check aria-hidden="true" /> You start on the Free plan.
      </p>
    </aside>
  );
}

// Long because it is one form: its fields, validation messages and submit share the same state.
export function OnboardingPage() {
  const user = useSession((s) => s.user);
  const profile = useSession((s) => s.profile);
  const completeOnboarding = useSession((s) => s.completeOnboarding);
  const signOut = useSession((s) => s.signOut);
  const initialName = profile?.full_name || (typeof user?.user_metadata?.full_name === 'string' ? user.user_metadata.full_name : '');

  const [fullName, setFullName] = useState(initialName);
  useDocumentTitle('Set up your workspace');
  const [orgName, setOrgName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const recheck = (field: Field, value: string) => {
    if (errors[field]) setErrors((e) => ({ ...e, [field]: validate(field, value) }));
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const next = { fullName: validate('fullName', fullName), orgName: validate('orgName', orgName), slug: validate('slug', slug) };
    setErrors(next);
    if (next.fullName || next.orgName || next.slug) return;
    setFormError(null);
    setBusy(true);
    try {
      const res = await api.onboarding({ full_name: fullName.trim(), organization_name: orgName.trim(), organization_slug: slug });
      completeOnboarding(res.profile, res.organization);
    } catch (err) {
      setBusy(false);
      if (isApiError(err) && err.status === 409) {
        setErrors((x) => ({ ...x, slug: err.error ?? MESSAGES.slugTaken }));
        return;
      }
      setFormError(serverMessage(err, 'Failed to complete onboarding'));
    }
  };

  const empty = !fullName.trim() || !orgName.trim() || !slug;

  return (
    <div className={styles.page}>
      <TopBar email={profile?.email ?? user?.email} onSignOut={() => void signOut()} />
      <main className={styles.main}>
        <div className={styles.card}>
          <form className={styles.form} onSubmit={(e) => void onSubmit(e)} noValidate>
            <header className={styles.header}>
              <span className={styles.step}>Set up your workspace</span>
              <h1 className={styles.title}>Welcome to Vellum!</h1>
              <p className={styles.subtitle}>Create your organization to start building image datasets.</p>
            </header>
            {formError ? (
              <Banner tone="danger" title="Failed to complete onboarding">
                {formError !== 'Failed to complete onboarding' ? formError : 'Please check your connection and try again.'}
              </Banner>
            ) : null}
            <TextField
              label="Full name"
              name="full_name"
              autoComplete="name"
              leadingIcon={<UserRound />}
              value={fullName}
              error={errors.fullName}
              disabled={busy}
              autoFocus={!initialName}
              onChange={(e) => {
                setFullName(e.target.value);
                recheck('fullName', e.target.value);
              }}
              onBlur={() => fullName && setErrors((x) => ({ ...x, fullName: validate('fullName', fullName) }))}
            />
            <TextField
              label="Organization name"
              name="organization_name"
              autoComplete="organization"
              placeholder="Acme Robotics"
              leadingIcon={<Building />}
              value={orgName}
              error={errors.orgName}
              disabled={busy}
              autoFocus={Boolean(initialName)}
              onChange={(e) => {
                const value = e.target.value;
                setOrgName(value);
                recheck('orgName', value);
                if (!slugEdited) {
                  const derived = slugify(value);
                  setSlug(derived);
                  recheck('slug', derived);
                }
              }}
            />
            <TextField
              label="Organization identifier"
              name="organization_slug"
              placeholder="acme-robotics"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              value={slug}
              error={errors.slug}
              disabled={busy}
              hint="Lowercase letters, numbers and hyphens. Used in links and your storage bucket."
              onChange={(e) => {
                setSlugEdited(true);
                setSlug(e.target.value);
                recheck('slug', e.target.value);
              }}
              onBlur={() => slug && setErrors((x) => ({ ...x, slug: validate('slug', slug) }))}
            />
            <div className={styles.bucket} aria-live="polite">
              <Database aria-hidden="true" />
              <span>Storage bucket</span>
              <code className={styles.bucketName}>{bucketNameFor(slug || 'your-identifier')}</code>
            </div>
            <Button type="submit" variant="primary" fullWidth busy={busy} busyLabel="Creating organization..." disabled={empty}>
              Create Organization &amp; Continue
            </Button>
          </form>
          <Benefits />
        </div>
      </main>
    </div>
  );
}

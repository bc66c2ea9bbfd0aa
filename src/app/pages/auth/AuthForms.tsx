// The authentication page's three steps as forms: the email (with Google and the sign-in / sign-up
// switch), the password to sign in, and the name and password to create an account.
import { ArrowLeft, Eye, EyeOff, LockKeyhole, Mail, UserRound } from 'lucide-react';
import { Banner } from '../../components/Banner';
import { Button, IconButton } from '../../components/Button';
import { TextField } from '../../components/TextField';
import type { AuthFlow } from './useAuthFlow';
import styles from './AuthPage.module.css';

function NoticeBanner({ flow }: { flow: AuthFlow }) {
  return flow.notice ? (
    <Banner tone={flow.notice.tone} className={styles.notice}>
      {flow.notice.text}
    </Banner>
  ) : null;
}

function PasswordToggle({ flow }: { flow: AuthFlow }) {
  return (
    <IconButton
      label={flow.showPassword ? 'Hide password' : 'Show password'}
      icon={flow.showPassword ? <EyeOff /> : <Eye />}
      onClick={flow.toggleShowPassword}
      showTooltip={false}
    />
  );
}

function BackButton({ flow }: { flow: AuthFlow }) {
  return (
    <Button variant="ghost" size="sm" icon={<ArrowLeft />} className={styles.back} disabled={flow.locked} onClick={flow.backToEmail}>
      Back
    </Button>
  );
}

export function EmailStep({ flow }: { flow: AuthFlow }) {
  const signin = flow.mode === 'signin';
  return (
    <form className={styles.form} onSubmit={flow.submitEmail} noValidate>
      <header className={styles.header}>
        <h1 className={styles.title}>{signin ? 'Welcome Back' : 'Get Started'}</h1>
        <p className={styles.subtitle}>{signin ? 'Sign in to your Vellum workspace.' : 'Create your Vellum account to start building datasets.'}</p>
      </header>
      <NoticeBanner flow={flow} />
      <TextField
        ref={flow.firstFieldRef}
        label="Email address"
        type="email"
        name="email"
        autoComplete="email"
        placeholder="you@company.com"
        leadingIcon={<Mail />}
        value={flow.email}
        error={flow.errors.email}
        disabled={flow.locked}
        onChange={(e) => {
          flow.setEmail(e.target.value);
          if (flow.errors.email) flow.setErrors({});
        }}
      />
      <Button type="submit" variant="primary" fullWidth disabled={flow.locked}>
        Continue
      </Button>
      <div className={styles.divider}>
        <span>or</span>
      </div>
      <Button variant="secondary" fullWidth icon={<GoogleIcon />} busy={flow.busy === 'google'} disabled={flow.locked} onClick={flow.google}>
        Continue with Google
      </Button>
      <p className={styles.toggle}>
        {signin ? "Don't have an account?" : 'Already have an account?'}{' '}
        <button type="button" className={styles.link} disabled={flow.locked} onClick={flow.toggleMode}>
          {signin ? 'Sign up' : 'Sign in'}
        </button>
      </p>
    </form>
  );
}

export function PasswordStep({ flow }: { flow: AuthFlow }) {
  return (
    <form className={styles.form} onSubmit={flow.signIn} noValidate>
      <BackButton flow={flow} />
      <header className={styles.header}>
        <h1 className={styles.title}>Enter Your Password</h1>
        <p className={styles.subtitle}>
          Signing in as <strong className={styles.email}>{flow.email.trim()}</strong>
        </p>
      </header>
      <NoticeBanner flow={flow} />
      <input type="email" name="email" autoComplete="username" value={flow.email.trim()} readOnly hidden />
      <TextField
        ref={flow.firstFieldRef}
        label="Password"
        type={flow.showPassword ? 'text' : 'password'}
        name="password"
        autoComplete="current-password"
        leadingIcon={<LockKeyhole />}
        trailing={<PasswordToggle flow={flow} />}
        value={flow.password}
        error={flow.errors.password}
        disabled={flow.locked}
        onChange={(e) => {
          flow.setPassword(e.target.value);
          if (flow.errors.password) flow.setErrors({});
        }}
      />
      <Button type="submit" variant="primary" fullWidth busy={flow.busy === 'signin'} busyLabel="Signing in..." disabled={flow.waiting}>
        Sign In
      </Button>
      <p className={styles.toggle}>
        New to Vellum?{' '}
        <button type="button" className={styles.link} disabled={flow.locked} onClick={flow.createAccountInstead}>
          Create an account
        </button>
      </p>
    </form>
  );
}

export function SignUpStep({ flow }: { flow: AuthFlow }) {
  return (
    <form className={styles.form} onSubmit={flow.signUp} noValidate>
      <BackButton flow={flow} />
      <header className={styles.header}>
        <h1 className={styles.title}>Complete Your Profile</h1>
        <p className={styles.subtitle}>
          Creating an account for <strong className={styles.email}>{flow.email.trim()}</strong>
        </p>
      </header>
      <NoticeBanner flow={flow} />
      <input type="email" name="email" autoComplete="username" value={flow.email.trim()} readOnly hidden />
      <TextField
        ref={flow.firstFieldRef}
        label="Full name"
        name="name"
        autoComplete="name"
        placeholder="Ada Lovelace"
        leadingIcon={<UserRound />}
        value={flow.fullName}
        error={flow.errors.fullName}
        disabled={flow.locked}
        onChange={(e) => {
          flow.setFullName(e.target.value);
          if (flow.errors.fullName) flow.setErrors({ ...flow.errors, fullName: undefined });
        }}
      />
      <TextField
        label="Password"
        type={flow.showPassword ? 'text' : 'password'}
        name="new-password"
        autoComplete="new-password"
        leadingIcon={<LockKeyhole />}
        trailing={<PasswordToggle flow={flow} />}
        hint="At least 6 characters."
        value={flow.password}
        error={flow.errors.password}
        disabled={flow.locked}
        onChange={(e) => {
          flow.setPassword(e.target.value);
          if (flow.errors.password) flow.setErrors({ ...flow.errors, password: undefined });
        }}
      />
      <Button type="submit" variant="primary" fullWidth busy={flow.busy === 'signup'} busyLabel="Creating account..." disabled={flow.waiting}>
        Create Account
      </Button>
    </form>
  );
}

function GoogleIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path fill="#4285F4" d="M22.56 12.25c0-.78-.07-1.53-.2-2.25H12v4.26h5.92a5.06 5.06 0 0 1-2.2 3.32v2.77h3.57c2.08-1.92 3.27-4.74 3.27-8.1z" />
      <path fill="#34A853" d="M12 23c2.97 0 5.46-.98 7.28-2.66l-3.57-2.77c-.98.66-2.23 1.06-3.71 1.06-2.86 0-5.29-1.93-6.16-4.53H2.18v2.84A11 11 0 0 0 12 23z" />
      <path fill="#FBBC05" d="M5.84 14.1A6.6 6.6 0 0 1 5.5 12c0-.73.13-1.44.34-2.1V7.06H2.18A11 11 0 0 0 1 12c0 1.77.43 3.45 1.18 4.94l3.66-2.84z" />
      <path fill="#EA4335" d="M12 5.38c1.62 0 3.06.56 4.21 1.64l3.15-3.15C17.45 2.09 14.97 1 12 1 7.7 1 3.99 3.47 2.18 7.06l3.66 2.84c.87-2.6 3.3-4.52 6.16-4.52z" />
    </svg>
  );
}

// Authentication page (spec sections 2, 4, 5, 8): email, then password (sign in) or full name +
// password (sign up). All identity goes through supabase-js.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ArrowLeft, Eye, EyeOff, LockKeyhole, Mail, UserRound } from 'lucide-react';
import { MESSAGES, validateEmail, validatePassword } from '../../../contract/validation';
import { getConfig, getSupabase } from '../../api/supabase';
import { Banner, type BannerTone } from '../../components/Banner';
import { Button, IconButton } from '../../components/Button';
import { Logo } from '../../components/Logo';
import { TextField } from '../../components/TextField';
import { useSession } from '../../stores/session';
import { BrandPanel } from './BrandPanel';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import styles from './AuthPage.module.css';
import { returnUrlAfterAuth } from './return-url';

type Step = 'email' | 'password' | 'signup';
type Mode = 'signin' | 'signup';
interface Notice {
  tone: BannerTone;
  text: string;
}

const WRONG_CREDENTIALS = ['Invalid login credentials', 'Invalid email or password'];
export const AUTH_TEXT = {
  accountNotFound: 'Account not found. Creating a new account for you...',
  signedIn: 'Successfully signed in!',
  checkEmail: 'Account created! Please check your email to verify your account, then sign in.',
  signInFailed: 'Failed to sign in',
  unexpected: 'An unexpected error occurred. Please try again.',
  googleFailed: 'Failed to sign in with Google',
  signUpFailed: 'Failed to create account',
  googleUnavailable: 'Google sign-in is not set up on this server. Continue with your email instead.',
} as const;

export function AuthPage() {
  const setHold = useSession((s) => s.setHoldAuthScreen);
  const [mode, setMode] = useState<Mode>('signin');
  const [step, setStep] = useState<Step>('email');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [fullName, setFullName] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [errors, setErrors] = useState<{ email?: string; password?: string; fullName?: string }>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const [busy, setBusy] = useState<'signin' | 'signup' | 'google' | null>(null);
  /** True while a timed transition runs (the 2 s, 3 s and 0.5 s pauses of spec section 4). */
  const [waiting, setWaiting] = useState(false);
  const [cameFromFailedSignIn, setCameFromFailedSignIn] = useState(false);
  const timers = useRef<number[]>([]);
  const firstFieldRef = useRef<HTMLInputElement>(null);

  useDocumentTitle(step === 'email' ? (mode === 'signin' ? 'Sign in' : 'Sign up') : step === 'password' ? 'Sign in' : 'Create your account');
  useEffect(() => () => timers.current.forEach((t) => window.clearTimeout(t)), []);
  // Back from a failed Google sign-in: the provider's redirect carries an error.
  useEffect(() => {
    const params = new URLSearchParams(window.location.search || window.location.hash.replace(/^#/, ''));
    if (params.get('error') || params.get('error_description')) {
      setNotice({ tone: 'danger', text: AUTH_TEXT.googleFailed });
      window.history.replaceState(null, '', window.location.pathname);
    }
  }, []);
  useEffect(() => {
    firstFieldRef.current?.focus();
  }, [step]);

  const later = (ms: number, fn: () => void) => {
    timers.current.push(window.setTimeout(fn, ms));
  };

  const goTo = (next: Step) => {
    setErrors({});
    setNotice(null);
    setShowPassword(false);
    setStep(next);
  };

  const onEmailSubmit = (e: FormEvent) => {
    e.preventDefault();
    const error = validateEmail(email);
    if (error) return setErrors({ email: error });
    setCameFromFailedSignIn(false);
    goTo(mode === 'signin' ? 'password' : 'signup');
  };

  const onSignIn = async (e: FormEvent) => {
    e.preventDefault();
    const error = validatePassword(password, false);
    if (error) return setErrors({ password: error });
    setErrors({});
    setNotice(null);
    setBusy('signin');
    setHold(true);
    try {
      const supabase = await getSupabase();
      const { data, error: authError } = await supabase.auth.signInWithPassword({ email: email.trim(), password });
      if (authError || !data.session) {
        setHold(false);
        const message = authError?.message ?? '';
        if (WRONG_CREDENTIALS.some((m) => message.includes(m))) {
          setNotice({ tone: 'info', text: AUTH_TEXT.accountNotFound });
          setWaiting(true);
          later(2000, () => {
            setWaiting(false);
            setPassword('');
            setCameFromFailedSignIn(true);
            goTo('signup');
          });
        } else {
          setNotice({ tone: 'danger', text: message || AUTH_TEXT.signInFailed });
        }
        return;
      }
      setNotice({ tone: 'success', text: AUTH_TEXT.signedIn });
      setWaiting(true);
      later(500, () => setHold(false));
    } catch (_err) {
      setHold(false);
      setNotice({ tone: 'danger', text: AUTH_TEXT.unexpected });
    } finally {
      setBusy(null);
    }
  };

  const onSignUp = async (e: FormEvent) => {
    e.preventDefault();
    const next: typeof errors = {};
    if (!fullName.trim()) next.fullName = MESSAGES.fullNameRequired;
    const pwError = validatePassword(password, true);
    if (pwError) next.password = pwError;
    setErrors(next);
    if (next.fullName || next.password) return;
    setNotice(null);
    setBusy('signup');
    setHold(true);
    try {
      const supabase = await getSupabase();
      const { data, error } = await supabase.auth.signUp({
        email: email.trim(),
        password,
        options: { data: { full_name: fullName.trim() }, emailRedirectTo: returnUrlAfterAuth(window.location) },
      });
      if (error) {
        setHold(false);
        setNotice({ tone: 'danger', text: error.message || AUTH_TEXT.signUpFailed });
        return;
      }
      if (data.session) {
        // The embedded auth service confirms at once: continue signed in.
        setNotice({ tone: 'success', text: AUTH_TEXT.signedIn });
        setWaiting(true);
        later(500, () => setHold(false));
        return;
      }
      setHold(false);
      setNotice({ tone: 'success', text: AUTH_TEXT.checkEmail });
      setWaiting(true);
      later(3000, () => {
        setWaiting(false);
        setPassword('');
        setMode('signin');
        goTo('email');
      });
    } catch (_err) {
      setHold(false);
      setNotice({ tone: 'danger', text: AUTH_TEXT.signUpFailed });
    } finally {
      setBusy(null);
    }
  };

  const onGoogle = async () => {
    setNotice(null);
    const config = getConfig();
    if (config && !config.googleEnabled) {
      setNotice({ tone: 'warning', text: AUTH_TEXT.googleUnavailable });
      return;
    }
    setBusy('google');
    try {
      const supabase = await getSupabase();
      const { error } = await supabase.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: returnUrlAfterAuth(window.location) } });
      if (error) {
        setNotice({ tone: 'danger', text: AUTH_TEXT.googleFailed });
        setBusy(null);
      }
      // On success the browser leaves for the provider; keep the spinner until it does.
    } catch (_err) {
      setNotice({ tone: 'danger', text: AUTH_TEXT.googleFailed });
      setBusy(null);
    }
  };

  const locked = busy !== null || waiting;
  const passwordToggle = (
    <IconButton
      label={showPassword ? 'Hide password' : 'Show password'}
      icon={showPassword ? <EyeOff /> : <Eye />}
      onClick={() => setShowPassword((v) => !v)}
      showTooltip={false}
    />
  );
  const noticeBanner = notice ? (
    <Banner tone={notice.tone} className={styles.notice}>
      {notice.text}
    </Banner>
  ) : null;
  const backButton = (
    <Button
      variant="ghost"
      size="sm"
      icon={<ArrowLeft />}
      className={styles.back}
      disabled={locked}
      onClick={() => {
        setPassword('');
        goTo('email');
      }}
    >
      Back
    </Button>
  );

  return (
    <div className={styles.page}>
      <BrandPanel />
      <main className={styles.formSide}>
        <div className={styles.formWrap}>
          <div className={styles.logo}>
            <Logo />
          </div>

          {step === 'email' ? (
            <form className={styles.form} onSubmit={onEmailSubmit} noValidate>
              <header className={styles.header}>
                <h1 className={styles.title}>{mode === 'signin' ? 'Welcome Back' : 'Get Started'}</h1>
                <p className={styles.subtitle}>{mode === 'signin' ? 'Sign in to your Vellum workspace.' : 'Create your Vellum account to start building datasets.'}</p>
              </header>
              {noticeBanner}
              <TextField
                ref={firstFieldRef}
                label="Email address"
                type="email"
                name="email"
                autoComplete="email"
                placeholder="you@company.com"
                leadingIcon={<Mail />}
                value={email}
                error={errors.email}
                disabled={locked}
                onChange={(e) => {
                  setEmail(e.target.value);
                  if (errors.email) setErrors({});
                }}
              />
              <Button type="submit" variant="primary" fullWidth disabled={locked}>
                Continue
              </Button>
              <div className={styles.divider}>
                <span>or</span>
              </div>
              <Button variant="secondary" fullWidth icon={<GoogleIcon />} busy={busy === 'google'} disabled={locked} onClick={() => void onGoogle()}>
                Continue with Google
              </Button>
              <p className={styles.toggle}>
                {mode === 'signin' ? "Don't have an account?" : 'Already have an account?'}{' '}
                <button
                  type="button"
                  className={styles.link}
                  disabled={locked}
                  onClick={() => {
                    setMode(mode === 'signin' ? 'signup' : 'signin');
                    setErrors({});
                    setNotice(null);
                  }}
                >
                  {mode === 'signin' ? 'Sign up' : 'Sign in'}
                </button>
              </p>
            </form>
          ) : null}

          {step === 'password' ? (
            <form className={styles.form} onSubmit={(e) => void onSignIn(e)} noValidate>
              {backButton}
              <header className={styles.header}>
                <h1 className={styles.title}>Enter Your Password</h1>
                <p className={styles.subtitle}>
                  Signing in as <strong className={styles.email}>{email.trim()}</strong>
                </p>
              </header>
              {noticeBanner}
              <input type="email" name="email" autoComplete="username" value={email.trim()} readOnly hidden />
              <TextField
                ref={firstFieldRef}
                label="Password"
                type={showPassword ? 'text' : 'password'}
                name="password"
                autoComplete="current-password"
                leadingIcon={<LockKeyhole />}
                trailing={passwordToggle}
                value={password}
                error={errors.password}
                disabled={locked}
                onChange={(e) => {
                  setPassword(e.target.value);
                  if (errors.password) setErrors({});
                }}
              />
              <Button type="submit" variant="primary" fullWidth busy={busy === 'signin'} busyLabel="Signing in..." disabled={waiting}>
                Sign In
              </Button>
            </form>
          ) : null}

          {step === 'signup' ? (
            <form className={styles.form} onSubmit={(e) => void onSignUp(e)} noValidate>
              {backButton}
              <header className={styles.header}>
                <h1 className={styles.title}>Complete Your Profile</h1>
                <p className={styles.subtitle}>
                  Creating an account for <strong className={styles.email}>{email.trim()}</strong>
                </p>
              </header>
              {notice ? (
                noticeBanner
              ) : cameFromFailedSignIn ? (
                <Banner tone="info" className={styles.notice}>
                  No account was found for <strong>{email.trim()}</strong>. Add your name and a password to create one.
                </Banner>
              ) : null}
              <input type="email" name="email" autoComplete="username" value={email.trim()} readOnly hidden />
              <TextField
                ref={firstFieldRef}
                label="Full name"
                name="name"
                autoComplete="name"
                placeholder="Ada Lovelace"
                leadingIcon={<UserRound />}
                value={fullName}
                error={errors.fullName}
                disabled={locked}
                onChange={(e) => {
                  setFullName(e.target.value);
                  if (errors.fullName) setErrors((x) => ({ ...x, fullName: undefined }));
                }}
              />
              <TextField
                label="Password"
                type={showPassword ? 'text' : 'password'}
                name="new-password"
                autoComplete="new-password"
                leadingIcon={<LockKeyhole />}
                trailing={passwordToggle}
                hint="At least 6 characters."
                value={password}
                error={errors.password}
                disabled={locked}
                onChange={(e) => {
                  setPassword(e.target.value);
                  if (errors.password) setErrors((x) => ({ ...x, password: undefined }));
                }}
              />
              <Button type="submit" variant="primary" fullWidth busy={busy === 'signup'} busyLabel="Creating account..." disabled={waiting}>
                Create Account
              </Button>
            </form>
          ) : null}

          <p className={styles.legal}>Your images stay in your organization's private storage.</p>
        </div>
      </main>
    </div>
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

// The authentication page's state: the step (email, then password to sign in or name and password
// to sign up), the fields and their errors, the notice, which button is busy, and the timed
// pauses between steps. The buttons' work is in authActions.ts.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { validateEmail } from '../../../contract/validation';
import { useSession } from '../../stores/session';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { withoutAuthParams } from './return-url';
import { AUTH_TEXT, signInWithGoogle, signInWithPassword, signUpWithPassword, type AuthControls, type FieldErrors, type Mode, type Notice, type Step } from './authActions';

export function useAuthFlow() {
  const setHold = useSession((s) => s.setHoldAuthScreen);
  const [mode, setMode] = useState<Mode>('signin');
  const [step, setStep] = useState<Step>('email');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [fullName, setFullName] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const [busy, setBusy] = useState<'signin' | 'signup' | 'google' | null>(null);
  /** True while a timed transition runs (the 2 s, 3 s and 0.5 s pauses of spec section 4). */
  const [waiting, setWaiting] = useState(false);
  const timers = useRef<number[]>([]);
  const firstFieldRef = useRef<HTMLInputElement>(null);

  useDocumentTitle(step === 'email' ? (mode === 'signin' ? 'Sign in' : 'Sign up') : step === 'password' ? 'Sign in' : 'Create your account');
  useEffect(() => () => timers.current.forEach((t) => window.clearTimeout(t)), []);
  // Back from a failed Google sign-in: the provider's redirect carries an error.
  useEffect(() => {
    const params = new URLSearchParams(window.location.search || window.location.hash.replace(/^#/, ''));
    if (params.get('error') || params.get('error_description')) {
      setNotice({ tone: 'danger', text: AUTH_TEXT.googleFailed });
      // The error goes; the link the person came for (its path and query) stays.
      window.history.replaceState(null, '', `${window.location.pathname}${withoutAuthParams(window.location.search)}`);
    }
  }, []);
  useEffect(() => {
    firstFieldRef.current?.focus();
  }, [step]);

  const goTo = (next: Step) => {
    setErrors({});
    setNotice(null);
    setShowPassword(false);
    setStep(next);
  };
  const controls: AuthControls = {
    email,
    password,
    fullName,
    setErrors,
    setNotice,
    setBusy,
    setWaiting,
    setHold,
    setPassword,
    setMode,
    focusFirstField: () => window.setTimeout(() => firstFieldRef.current?.focus(), 0),
    goTo,
    later: (ms, fn) => void timers.current.push(window.setTimeout(fn, ms)),
  };

  return {
    mode,
    step,
    email,
    password,
    fullName,
    showPassword,
    errors,
    notice,
    busy,
    waiting,
    firstFieldRef,
    /** Nothing can be changed while a request or a timed step runs. */
    locked: busy !== null || waiting,
    setEmail,
    setPassword,
    setFullName,
    setErrors,
    toggleShowPassword: () => setShowPassword((v) => !v),
    submitEmail(e: FormEvent) {
      e.preventDefault();
      const error = validateEmail(email);
      if (error) return setErrors({ email: error });
      goTo(mode === 'signin' ? 'password' : 'signup');
    },
    backToEmail() {
      setPassword('');
      goTo('email');
    },
    /** From the password step: this email is new, so create its account instead (the email stays). */
    createAccountInstead() {
      setPassword('');
      goTo('signup');
    },
    toggleMode() {
      setMode(mode === 'signin' ? 'signup' : 'signin');
      setErrors({});
      setNotice(null);
    },
    signIn: (e: FormEvent) => void signInWithPassword(controls, e),
    signUp: (e: FormEvent) => void signUpWithPassword(controls, e),
    google: () => void signInWithGoogle(controls),
  };
}

export type AuthFlow = ReturnType<typeof useAuthFlow>;

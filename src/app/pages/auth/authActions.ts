// What the authentication page's buttons do, through supabase-js (spec sections 4, 5, 8): sign in
// with a password (a wrong one is said as such, issue 37: it never turns into sign-up), sign up, and Google. Each
// reports through the page's controls: notices, field errors, the busy button and timed steps.
import type { FormEvent } from 'react';
import { MESSAGES, validatePassword } from '../../../contract/validation';
import { getConfig, getSupabase } from '../../api/supabase';
import type { BannerTone } from '../../components/Banner';
import { returnUrlAfterAuth } from './return-url';

export type Step = 'email' | 'password' | 'signup';
export type Mode = 'signin' | 'signup';
export interface Notice {
  tone: BannerTone;
  text: string;
}
export type FieldErrors = { email?: string; password?: string; fullName?: string };

const WRONG_CREDENTIALS = ['Invalid login credentials', 'Invalid email or password'];
export const AUTH_TEXT = {
  // The auth service answers an unknown email and a wrong password alike (no account enumeration),
  // so the page cannot say which: it says both, and offers sign-up as a choice.
  wrongCredentials: 'Incorrect email or password. Check them and try again, or create an account if you are new.',
  signedIn: 'Successfully signed in!',
  checkEmail: 'Account created! Please check your email to verify your account, then sign in.',
  signInFailed: 'Failed to sign in',
  unexpected: 'An unexpected error occurred. Please try again.',
  googleFailed: 'Failed to sign in with Google',
  signUpFailed: 'Failed to create account',
  googleUnavailable: 'Google sign-in is not set up on this server. Continue with your email instead.',
} as const;

/** What an action reads and sets on the page. */
export interface AuthControls {
  email: string;
  password: string;
  fullName: string;
  setErrors(errors: FieldErrors): void;
  setNotice(notice: Notice | null): void;
  setBusy(busy: 'signin' | 'signup' | 'google' | null): void;
  setWaiting(waiting: boolean): void;
  /** Keeps the authentication screen up while a session arrives (the pauses of spec section 4). */
  setHold(hold: boolean): void;
  setPassword(password: string): void;
  setMode(mode: Mode): void;
  /** Puts the keyboard back in the step's first field (the password, after a wrong one). */
  focusFirstField(): void;
  goTo(step: Step): void;
  later(ms: number, fn: () => void): void;
}

/** Shows the success notice, then lets the signed-in app take over after half a second. */
function signedIn(c: AuthControls): void {
  c.setNotice({ tone: 'success', text: AUTH_TEXT.signedIn });
  c.setWaiting(true);
  c.later(500, () => c.setHold(false));
}

export async function signInWithPassword(c: AuthControls, e: FormEvent): Promise<void> {
  e.preventDefault();
  const error = validatePassword(c.password, false);
  if (error) return c.setErrors({ password: error });
  c.setErrors({});
  c.setNotice(null);
  c.setBusy('signin');
  c.setHold(true);
  try {
    const supabase = await getSupabase();
    const { data, error: authError } = await supabase.auth.signInWithPassword({ email: c.email.trim(), password: c.password });
    if (authError || !data.session) {
      c.setHold(false);
      const message = authError?.message ?? '';
      if (WRONG_CREDENTIALS.some((m) => message.includes(m))) {
        c.setNotice({ tone: 'danger', text: AUTH_TEXT.wrongCredentials });
        c.setPassword('');
        c.focusFirstField();
      } else {
        c.setNotice({ tone: 'danger', text: message || AUTH_TEXT.signInFailed });
      }
      return;
    }
    signedIn(c);
  } catch (_err) {
    c.setHold(false);
    c.setNotice({ tone: 'danger', text: AUTH_TEXT.unexpected });
  } finally {
    c.setBusy(null);
  }
}

export async function signUpWithPassword(c: AuthControls, e: FormEvent): Promise<void> {
  e.preventDefault();
  const next: FieldErrors = {};
  if (!c.fullName.trim()) next.fullName = MESSAGES.fullNameRequired;
  const pwError = validatePassword(c.password, true);
  if (pwError) next.password = pwError;
  c.setErrors(next);
  if (next.fullName || next.password) return;
  c.setNotice(null);
  c.setBusy('signup');
  c.setHold(true);
  try {
    const supabase = await getSupabase();
    const { data, error } = await supabase.auth.signUp({
      email: c.email.trim(),
      password: c.password,
      options: { data: { full_name: c.fullName.trim() }, emailRedirectTo: returnUrlAfterAuth(window.location) },
    });
    if (error) {
      c.setHold(false);
      c.setNotice({ tone: 'danger', text: error.message || AUTH_TEXT.signUpFailed });
      return;
    }
    // The embedded auth service confirms at once: continue signed in.
    if (data.session) return signedIn(c);
    c.setHold(false);
    c.setNotice({ tone: 'success', text: AUTH_TEXT.checkEmail });
    c.setWaiting(true);
    c.later(3000, () => {
      c.setWaiting(false);
      c.setPassword('');
      c.setMode('signin');
      c.goTo('email');
    });
  } catch (_err) {
    c.setHold(false);
    c.setNotice({ tone: 'danger', text: AUTH_TEXT.signUpFailed });
  } finally {
    c.setBusy(null);
  }
}

export async function signInWithGoogle(c: AuthControls): Promise<void> {
  c.setNotice(null);
  const config = getConfig();
  if (config && !config.googleEnabled) {
    c.setNotice({ tone: 'warning', text: AUTH_TEXT.googleUnavailable });
    return;
  }
  c.setBusy('google');
  try {
    const supabase = await getSupabase();
    const { error } = await supabase.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: returnUrlAfterAuth(window.location) } });
    if (error) {
      c.setNotice({ tone: 'danger', text: AUTH_TEXT.googleFailed });
      c.setBusy(null);
    }
    // On success the browser leaves for the provider; keep the spinner until it does.
  } catch (_err) {
    c.setNotice({ tone: 'danger', text: AUTH_TEXT.googleFailed });
    c.setBusy(null);
  }
}

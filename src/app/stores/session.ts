// Session store (spec section 4 "Session"): who is signed in, their profile, their organizations
// and the current one. Fed by supabase-js auth events.
import { create } from 'zustand';
import type { AuthChangeEvent, Session, User } from '@supabase/supabase-js';
import type { CurrentUserResponse, Organization, Profile } from '../../contract/account';
import { api, isAuthFailure, serverMessage } from '../api/client';
import { getSupabase } from '../api/supabase';
import { useSelection } from './selection';

export type AuthStatus = 'loading' | 'signedOut' | 'signedIn';
export type ProfileStatus = 'idle' | 'loading' | 'ready' | 'error';

interface SessionState {
  authStatus: AuthStatus;
  /** Set when the configuration or the identity service could not be reached at start-up. */
  bootError: string | null;
  user: User | null;
  profile: Profile | null;
  profileStatus: ProfileStatus;
  profileError: string | null;
  needsOnboarding: boolean;
  organizations: Organization[];
  currentOrganization: Organization | null;
  reactivationMessage: string | null;
  /** The authentication page keeps the screen for a moment after success ('Successfully signed in!'). */
  holdAuthScreen: boolean;

  init(): Promise<void>;
  loadProfile(): Promise<void>;
  applyProfile(profile: Profile, preferredOrgId?: string | null): void;
  completeOnboarding(profile: Profile, organization: Organization): void;
  setCurrentOrganization(id: string): void;
  clearReactivationMessage(): void;
  setHoldAuthScreen(hold: boolean): void;
  signOut(): Promise<void>;
}

/** Organizations of a profile, each with the member's role as user_role. */
export function organizationsOf(profile: Profile | null): Organization[] {
  if (!profile) return [];
  return profile.organization_members.map((m) => ({ ...m.organization, user_role: m.role }));
}

function pickCurrent(orgs: Organization[], preferredId: string | null | undefined, defaultId: string | null | undefined): Organization | null {
  return orgs.find((o) => o.id === preferredId) ?? orgs.find((o) => o.id === defaultId) ?? orgs[0] ?? null;
}

const signedOutState = {
  user: null,
  profile: null,
  profileStatus: 'idle' as ProfileStatus,
  profileError: null,
  needsOnboarding: false,
  organizations: [],
  currentOrganization: null,
  reactivationMessage: null,
};

let initialized = false;
let loadSeq = 0;
let authRetries = 0;

export const useSession = create<SessionState>()((set, get) => ({
  authStatus: 'loading',
  bootError: null,
  ...signedOutState,
  holdAuthScreen: false,

  async init() {
    if (initialized) return;
    let supabase;
    try {
      supabase = await getSupabase();
    } catch (_err) {
      set({ bootError: 'Vellum could not reach its server. Check your connection and try again.' });
      return;
    }
    initialized = true;
    set({ bootError: null });
    supabase.auth.onAuthStateChange((event: AuthChangeEvent, session: Session | null) => {
      // Never await supabase calls inside this callback (supabase-js holds a lock while it runs).
      setTimeout(() => handleAuthEvent(event, session), 0);
    });
  },

  async loadProfile() {
    const seq = ++loadSeq;
    set({ profileStatus: 'loading', profileError: null });
    let me: CurrentUserResponse;
    try {
      me = await api.getMe();
    } catch (err) {
      if (seq !== loadSeq) return;
      if (isAuthFailure(err)) {
        // Spec section 8: ignored silently and retried on the next auth event. Ask for one by
        // refreshing the session; if that cannot work, the session ends (SIGNED_OUT).
        set({ profileStatus: 'idle' });
        if (authRetries < 2) {
          authRetries += 1;
          void refreshOrSignOut();
        } else {
          set({ profileStatus: 'error', profileError: 'Your session could not be verified. Please sign in again.' });
        }
        return;
      }
      set({ profileStatus: 'error', profileError: serverMessage(err, 'Vellum could not load your account. Please try again.') });
      return;
    }
    if (seq !== loadSeq || !get().user) return;
    authRetries = 0;
    const orgs = organizationsOf(me.profile);
    set({
      profile: me.profile,
      profileStatus: 'ready',
      profileError: null,
      needsOnboarding: me.needs_onboarding,
      organizations: orgs,
      currentOrganization: pickCurrent(orgs, get().currentOrganization?.id, me.profile.default_organization_id),
      reactivationMessage: me.was_reactivated ? (me.reactivation_message ?? 'Welcome back! Your account has been reactivated.') : get().reactivationMessage,
    });
  },

  applyProfile(profile, preferredOrgId) {
    const orgs = organizationsOf(profile);
    set({
      profile,
      organizations: orgs,
      currentOrganization: pickCurrent(orgs, preferredOrgId ?? get().currentOrganization?.id, profile.default_organization_id),
    });
  },

  completeOnboarding(profile, organization) {
    const orgs = organizationsOf(profile);
    const current = orgs.find((o) => o.id === organization.id) ?? organization;
    set({
      profile,
      needsOnboarding: false,
      organizations: orgs.some((o) => o.id === current.id) ? orgs : [...orgs, current],
      currentOrganization: current,
    });
  },

  setCurrentOrganization(id) {
    const org = get().organizations.find((o) => o.id === id);
    if (!org || org.id === get().currentOrganization?.id) return;
    set({ currentOrganization: org });
    useSelection.getState().clear();
  },

  clearReactivationMessage() {
    set({ reactivationMessage: null });
  },

  setHoldAuthScreen(hold) {
    set({ holdAuthScreen: hold });
  },

  async signOut() {
    const supabase = await getSupabase();
    const { error } = await supabase.auth.signOut();
    if (error) await supabase.auth.signOut({ scope: 'local' });
    set({ ...signedOutState, authStatus: 'signedOut' });
  },
}));

async function refreshOrSignOut() {
  const supabase = await getSupabase();
  const { error } = await supabase.auth.refreshSession();
  if (error) await supabase.auth.signOut({ scope: 'local' });
}

function handleAuthEvent(event: AuthChangeEvent, session: Session | null) {
  const state = useSession.getState();
  const set = useSession.setState;
  if (event === 'SIGNED_OUT' || !session) {
    loadSeq += 1;
    authRetries = 0;
    set({ ...signedOutState, authStatus: 'signedOut' });
    return;
  }
  const sameUser = state.user?.id === session.user.id;
  if (event === 'TOKEN_REFRESHED' || event === 'USER_UPDATED') {
    // Token refresh only updates the user ... unless an earlier profile load was ignored.
    set({ user: session.user, authStatus: 'signedIn' });
    if (state.profileStatus === 'idle') void state.loadProfile();
    return;
  }
  // INITIAL_SESSION, SIGNED_IN and the rest: a (possibly new) signed-in user.
  if (!sameUser) set({ ...signedOutState, user: session.user, authStatus: 'signedIn' });
  else set({ user: session.user, authStatus: 'signedIn' });
  const fresh = useSession.getState();
  if (!sameUser || fresh.profileStatus === 'idle' || fresh.profileStatus === 'error') void fresh.loadProfile();
}

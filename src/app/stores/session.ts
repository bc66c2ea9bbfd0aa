// Session store (spec section 4 "Session"): who is signed in, their profile, their organizations
// and the current one. Fed by supabase-js auth events.
//
// Roles change elsewhere (an owner makes someone a viewer, or removes them), so the profile is read
// again in the background, without the loading screen: when the window regains focus or the tab
// becomes visible, every PROFILE_REFRESH_MS while it is visible, and right after the API refuses
// a call (403, or 404 for an organization that is no longer ours). A changed role updates every
// useCan() at once and says so in a toast; a lost membership moves to another organization (or
// onboarding) and says so too.
import { create } from 'zustand';
import type { AuthChangeEvent, Session, User } from '@supabase/supabase-js';
import type { CurrentUserResponse, Organization, Profile } from '../../contract/account';
import { ROLE_LABEL } from '../../contract/permissions';
import { api, isAuthFailure, onApiRefusal, serverMessage } from '../api/client';
import { getSupabase } from '../api/supabase';
import { useSelection } from './selection';
import { toast } from './toast';

/** How often a visible tab re-reads the profile (its roles and organizations). */
export const PROFILE_REFRESH_MS = 30_000;

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
  /**
   * Re-reads the profile in the background (no loading screen). Resolves once a read that started
   * after this call has been applied. `quiet` leaves out the toasts (the caller says it itself).
   */
  refreshProfile(options?: { quiet?: boolean }): Promise<void>;
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

// Long because the store is one object: its actions (sign-in state, profile refresh, organization
// switch) read and set the same state, as zustand defines them.
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
    watchMembership();
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

  refreshProfile(options = {}) {
    if (options.quiet) quietNext = true;
    // One read at a time; a call during a read gets the read after it (which sees its change).
    if (!refreshing) {
      refreshing = backgroundRefresh().finally(() => {
        refreshing = null;
        lastRefreshAt = Date.now();
      });
      return refreshing;
    }
    queuedRefresh ??= refreshing.then(() => {
      queuedRefresh = null;
      return get().refreshProfile();
    });
    return queuedRefresh;
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

let refreshing: Promise<void> | null = null;
let queuedRefresh: Promise<void> | null = null;
let lastRefreshAt = 0;
let quietNext = false;

async function backgroundRefresh(): Promise<void> {
  const quiet = quietNext;
  quietNext = false;
  const before = useSession.getState();
  if (before.authStatus !== 'signedIn' || before.profileStatus !== 'ready' || !before.user) return;
  const seq = loadSeq;
  const userId = before.user.id;
  let me: CurrentUserResponse;
  try {
    me = await api.getMe();
  } catch (err) {
    // Nothing changes on screen for a failed background read. A session that ended elsewhere (the
    // account deleted in another tab) is refreshed or signed out, as for a profile load.
    if (isAuthFailure(err) && seq === loadSeq) void refreshOrSignOut();
    return;
  }
  const now = useSession.getState();
  // Signed out, another user, or a full load started meanwhile: that one wins.
  if (seq !== loadSeq || now.user?.id !== userId || now.profileStatus !== 'ready') return;
  applyRefreshed(me, quiet);
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Applies a re-read profile, keeping unchanged objects (no re-render, no refetch) and telling the member what changed. */
function applyRefreshed(me: CurrentUserResponse, quiet: boolean) {
  const state = useSession.getState();
  if (sameJson(me.profile, state.profile) && me.needs_onboarding === state.needsOnboarding) return;
  const previous = state.currentOrganization;
  const orgs = organizationsOf(me.profile).map((o) => state.organizations.find((p) => p.id === o.id && sameJson(p, o)) ?? o);
  const stillIn = previous ? orgs.find((o) => o.id === previous.id) : undefined;
  const current = pickCurrent(orgs, previous?.id, me.profile.default_organization_id);
  useSession.setState({ profile: me.profile, needsOnboarding: me.needs_onboarding, organizations: orgs, currentOrganization: current });
  if (!previous) return;
  if (!stillIn) {
    // The selected project belonged to the organization that is gone.
    useSelection.getState().clear();
    if (!quiet) toast(`You are no longer a member of ${previous.name}.`, 'danger', 10_000);
  } else if (stillIn.user_role !== previous.user_role && !quiet) {
    toast(`Your role in ${previous.name} is now ${ROLE_LABEL[stillIn.user_role]}.`, 'neutral', 10_000);
  }
}

/** Background re-reads when the member may have missed a change (see the top of this file). */
function watchMembership() {
  if (typeof window === 'undefined') return;
  const after = (gapMs: number) => {
    if (Date.now() - lastRefreshAt >= gapMs || refreshing) void useSession.getState().refreshProfile();
  };
  window.addEventListener('focus', () => after(5_000));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') after(5_000);
  });
  window.setInterval(() => {
    if (document.visibilityState === 'visible') after(PROFILE_REFRESH_MS / 2);
  }, PROFILE_REFRESH_MS);
  // The API refusing a call is the surest sign the role changed: 403 (the role no longer allows
  // it) at once, 404 (the organization may be gone) at most every 10 s.
  onApiRefusal((status) => after(status === 403 ? 1_000 : 10_000));
}

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

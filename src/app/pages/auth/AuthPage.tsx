// Authentication page (spec sections 2, 4, 5, 8): email, then password (sign in) or full name +
// password (sign up). All identity goes through supabase-js: the state is useAuthFlow.ts, what
// the buttons do is authActions.ts, the three steps' forms are AuthForms.tsx.
import { Logo } from '../../components/Logo';
import { BrandPanel } from './BrandPanel';
import { EmailStep, PasswordStep, SignUpStep } from './AuthForms';
import { useAuthFlow } from './useAuthFlow';
import styles from './AuthPage.module.css';

export function AuthPage() {
  const flow = useAuthFlow();
  return (
    <div className={styles.page}>
      <BrandPanel />
      <main className={styles.formSide}>
        <div className={styles.formWrap}>
          <div className={styles.logo}>
            <Logo />
          </div>
          {flow.step === 'email' ? <EmailStep flow={flow} /> : null}
          {flow.step === 'password' ? <PasswordStep flow={flow} /> : null}
          {flow.step === 'signup' ? <SignUpStep flow={flow} /> : null}
          <p className={styles.legal}>Your images stay in your organization's private storage.</p>
        </div>
      </main>
    </div>
  );
}

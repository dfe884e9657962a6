import { useState, type FormEvent } from 'react';
import { postJson, type RequestError } from './request.js';
import { Field, FormError, fieldError, formText } from './ui.js';

/** POST /console/session's answer: signed in, or the password was right and the authenticator's code is asked for. */
interface SignInAnswer {
  /** Null when the password was right but the authenticator's code is still owed. */
  staff: object | null;
  /** With `staff` null: send the code. Signed in: the account requires a second factor this staff member has not set up yet. */
  secondFactorRequired: boolean;
}

/** Sign-in with email and password, then (when the account or the staff member has it) the authenticator's code. */
export function SignIn({ onSignedIn }: { onSignedIn: (setUpSecondFactor: boolean) => void }) {
  const [step, setStep] = useState<'password' | 'code'>('password');
  const [error, setError] = useState<RequestError>();
  const [pending, setPending] = useState(false);
  const [credentials, setCredentials] = useState({ email: '', password: '' });

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = step === 'password' ? formText(form, 'email') : credentials.email;
    const password = step === 'password' ? formText(form, 'password') : credentials.password;
    const code = step === 'code' ? formText(form, 'code').replace(/\s/g, '') : undefined;
    setPending(true);
    setError(undefined);
    try {
      const answer = await postJson<SignInAnswer>('/console/session', code === undefined ? { email, password } : { email, password, code });
      if (!answer.staff) {
        setCredentials({ email, password });
        setStep('code');
        return;
      }
      onSignedIn(answer.secondFactorRequired);
    } catch (caught) {
      setError(caught as RequestError);
    } finally {
      setPending(false);
    }
  }

  return (
    <main className="narrow">
      <h1>Marquee console</h1>
      <form className="card stack" onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">{step === 'password' ? 'Sign in' : 'Two-factor sign-in'}</h2>
        {step === 'password' ? (
          <>
            <Field label="Email" name="email" type="email" autoComplete="username" required error={fieldError(error, 'email')} />
            <Field label="Password" name="password" type="password" autoComplete="current-password" required error={fieldError(error, 'password')} />
          </>
        ) : (
          <Field
            label="Code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]{6,8}"
            required
            autoFocus
            hint={`The six digits your authenticator app shows for ${credentials.email}.`}
            error={fieldError(error, 'code') ?? (error ? error.message : undefined)}
          />
        )}
        <FormError error={error} fields={step === 'password' ? ['email', 'password'] : ['code']} />
        <button type="submit" className="primary" disabled={pending}>
          Sign in
        </button>
        {step === 'code' && (
          <button type="button" className="link" onClick={() => (setStep('password'), setError(undefined))}>
            Use another account
          </button>
        )}
      </form>
    </main>
  );
}

/** The one-time link an owner's invitation (or `marquee staff add` without a password) gives: the new staff member sets a password. */
export function AcceptInvite({ token, onSignedIn }: { token: string; onSignedIn: () => void }) {
  const [error, setError] = useState<RequestError>();
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = formText(new FormData(event.currentTarget), 'password');
    setPending(true);
    setError(undefined);
    try {
      await postJson('/console/invite', { token, password });
      // The link is spent: it leaves the address bar and the history.
      history.replaceState(null, '', '/console');
      onSignedIn();
    } catch (caught) {
      setError(caught as RequestError);
    } finally {
      setPending(false);
    }
  }

  return (
    <main className="narrow">
      <h1>Marquee console</h1>
      <form className="card stack" onSubmit={(event) => void submit(event)} aria-labelledby="invite-title">
        <h2 id="invite-title">Choose your password</h2>
        <Field label="New password" name="password" type="password" autoComplete="new-password" minLength={12} required error={fieldError(error, 'password')} />
        <FormError error={error} fields={['password']} />
        <button type="submit" className="primary" disabled={pending}>
          Set password and sign in
        </button>
      </form>
    </main>
  );
}

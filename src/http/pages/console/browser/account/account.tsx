import { useState, type FormEvent } from 'react';
import { ChangePasswordDocument, ConfirmTotpDocument, RequireTotpDocument, StartTotpSetupDocument, type StartTotpSetupMutation } from '../generated/graphql.js';
import { Field, FormError, Status, fieldError, formText } from '../ui.js';
import { useMutation } from '../use-query.js';
import { useCan, useViewer } from '../viewer.js';
import { RecordRetention } from './retention.js';

/** The viewer's own settings (second factor, password) and, for owners, the account's requirement of a second factor. */
export function AccountPage() {
  const { viewer } = useViewer();
  const manages = useCan('settings.manage');
  return (
    <>
      <h1>Account</h1>
      <p className="muted">
        Signed in as {viewer.email}, {viewer.role} of {viewer.account.name}.
      </p>
      {manages && <RequireTwoFactor />}
      <RecordRetention manages={manages} />
      <TwoFactorSetup />
      <PasswordChange />
    </>
  );
}

function RequireTwoFactor() {
  const { viewer, refresh } = useViewer();
  const require = useMutation(RequireTotpDocument);
  const [message, setMessage] = useState<string>();
  return (
    <section className="card stack" aria-labelledby="require-heading">
      <h2 id="require-heading">Sign-in policy</h2>
      <div className="check">
        <input
          id="require-totp"
          type="checkbox"
          checked={viewer.secondFactorRequired}
          disabled={require.pending}
          onChange={(event) => {
            const required = event.currentTarget.checked;
            void require.run({ required }).then((answer) => {
              if (answer === undefined) return;
              setMessage(required ? 'Every staff member now signs in with a code.' : 'A code is no longer required.');
              refresh();
            });
          }}
        />
        <label htmlFor="require-totp">Require two-factor sign-in</label>
      </div>
      <Status message={require.error?.message ?? message} kind={require.error ? 'error' : 'info'} />
    </section>
  );
}

export function TwoFactorSetup() {
  const { viewer, refresh } = useViewer();
  const start = useMutation(StartTotpSetupDocument);
  const confirm = useMutation(ConfirmTotpDocument);
  const [setup, setSetup] = useState<StartTotpSetupMutation['startTotpSetup']>();
  const [done, setDone] = useState<string>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = formText(new FormData(event.currentTarget), 'code').replace(/\s/g, '');
    if (await confirm.run({ code })) {
      setSetup(undefined);
      setDone('Two-factor sign-in is on.');
      refresh();
    }
  }

  return (
    <section className="card stack" aria-labelledby="totp-heading">
      <h2 id="totp-heading">Two-factor sign-in</h2>
      <p>{viewer.secondFactorEnabled ? 'On: you sign in with a code from your authenticator app.' : 'Off: you sign in with your password alone.'}</p>
      {!setup && (
        <button type="button" disabled={start.pending} onClick={() => void start.run({}).then((answer) => answer && setSetup(answer.startTotpSetup))}>
          {viewer.secondFactorEnabled ? 'Set up a new authenticator' : 'Set up two-factor sign-in'}
        </button>
      )}
      {setup && (
        <form className="stack" onSubmit={(event) => void submit(event)}>
          <img className="qr" src={setup.qrSvgDataUrl} alt="QR code to scan with an authenticator app" width={200} height={200} />
          <p>
            Or type this key: <code className="secret">{setup.secret}</code>
          </p>
          <Field label="Code" name="code" inputMode="numeric" autoComplete="one-time-code" required error={fieldError(confirm.error, 'code')} hint="The six digits the app shows now." />
          <FormError error={confirm.error} fields={['code']} />
          <button type="submit" className="primary" disabled={confirm.pending}>
            Confirm code
          </button>
        </form>
      )}
      <FormError error={start.error} />
      <Status message={done} />
    </section>
  );
}

function PasswordChange() {
  const change = useMutation(ChangePasswordDocument);
  const [done, setDone] = useState<string>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    if (await change.run({ current: formText(form, 'current'), next: formText(form, 'next') })) {
      formElement.reset();
      setDone('Password changed. Your other sessions were ended.');
    }
  }

  return (
    <form className="card stack" onSubmit={(event) => void submit(event)} aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <Field label="Current password" name="current" type="password" autoComplete="current-password" required error={fieldError(change.error, 'current')} />
      <Field label="New password" name="next" type="password" autoComplete="new-password" minLength={12} required error={fieldError(change.error, 'next')} />
      <FormError error={change.error} fields={['current', 'next']} />
      <button type="submit" className="primary" disabled={change.pending}>
        Change password
      </button>
      <Status message={done} />
    </form>
  );
}

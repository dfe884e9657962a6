import { useId, useRef, useState, type ReactNode } from 'react';
import { ApplicationsDocument, CreateApiKeyDocument, RevokeApiKeyDocument, type ApplicationsQuery, type ConsoleKeyFragment } from '../generated/graphql.js';
import { Dialog, Loading, Status, Table, dateTime } from '../ui.js';
import { useMutation, useQuery } from '../use-query.js';

type Application = ApplicationsQuery['applications'][number];
type Key = ConsoleKeyFragment;

/** A key just created: the only time the console has it. */
interface CreatedKey {
  id: string;
  applicationId: string;
  key: string;
}

/**
 * Owners: the account's applications and their API keys. "Create key" answers the new key once, in
 * a read-only field to copy (only its hash is kept); "Revoke" asks first, then refuses the key at once.
 */
export function ApplicationsPage() {
  const list = useQuery(ApplicationsDocument, {});
  const create = useMutation(CreateApiKeyDocument);
  const revoke = useMutation(RevokeApiKeyDocument);
  const [created, setCreated] = useState<CreatedKey>();
  const [revoking, setRevoking] = useState<Key>();
  const [message, setMessage] = useState<string>();
  const failure = create.error ?? revoke.error;

  async function createKey(application: Application) {
    const answer = await create.run({ applicationId: application.id });
    if (!answer) return;
    setCreated({ id: answer.createApiKey.id, applicationId: application.id, key: answer.createApiKey.key });
    setMessage(`A new key for ${application.name} was created: copy it now.`);
    list.refetch();
  }

  async function revokeKey(key: Key) {
    const answer = await revoke.run({ keyId: key.id });
    setRevoking(undefined);
    if (answer === undefined) return;
    setMessage(answer.revokeApiKey ? `The key ${key.prefix}… was revoked.` : `The key ${key.prefix}… was already revoked.`);
    if (created?.id === key.id) setCreated(undefined);
    list.refetch();
  }

  const revokeButton = (key: Key) =>
    key.live ? (
      <button type="button" className="danger" onClick={() => setRevoking(key)} aria-label={`Revoke key ${key.prefix}…`}>
        Revoke
      </button>
    ) : (
      '—'
    );

  return (
    <>
      <h1>Applications</h1>
      <Status message={failure?.message ?? message} kind={failure ? 'error' : 'info'} />
      {list.error ? (
        <p className="error" role="alert">
          {list.error.message}
        </p>
      ) : !list.data ? (
        <Loading what="applications" />
      ) : (
        <>
          {list.data.applications.length === 0 && <p className="empty">The account has no application.</p>}
          {list.data.applications.map((application) => (
            <section key={application.id} className="card stack" aria-labelledby={`application-${application.id}`}>
              <h2 id={`application-${application.id}`}>{application.name}</h2>
              <p className="muted">
                Application {application.id} · {application.plan} plan · created {dateTime(application.createdAt)}
              </p>
              <div className="row">
                <button type="button" className="primary" disabled={create.pending} onClick={() => void createKey(application)} aria-label={`Create key for ${application.name}`}>
                  Create key
                </button>
              </div>
              {created?.applicationId === application.id && <NewKey name={application.name} apiKey={created.key} />}
              <KeyTable caption={`API keys of ${application.name}`} keys={application.keys} empty="No key yet." action={revokeButton} />
            </section>
          ))}
          {list.data.globalApiKeys.length > 0 && (
            <section className="card stack" aria-labelledby="global-keys">
              <h2 id="global-keys">Account key</h2>
              <p className="muted">The account&apos;s global key reads its usage only; it is made with the command line.</p>
              <KeyTable caption="Global keys of the account" keys={list.data.globalApiKeys} empty="No global key." action={revokeButton} />
            </section>
          )}
        </>
      )}
      <Dialog open={revoking !== undefined} title={`Revoke the key ${revoking?.prefix ?? ''}…?`} onClose={() => setRevoking(undefined)}>
        <p>Whatever uses it is refused from now on. A revoked key cannot be brought back: a new one must be created.</p>
        <div className="row end">
          <button type="button" onClick={() => setRevoking(undefined)}>
            Cancel
          </button>
          <button type="button" className="danger" disabled={revoke.pending} onClick={() => void revokeKey(revoking!)}>
            Revoke key
          </button>
        </div>
      </Dialog>
    </>
  );
}

function KeyTable({ caption, keys, empty, action }: { caption: string; keys: Key[]; empty: string; action: (key: Key) => ReactNode }) {
  return (
    <Table<Key>
      caption={caption}
      rows={keys}
      rowKey={(key) => key.id}
      empty={empty}
      columns={[
        { label: 'Key', cell: (key) => <code>{key.prefix}…</code> },
        { label: 'Created', cell: (key) => dateTime(key.createdAt) },
        { label: 'Status', cell: (key) => (key.live ? 'Live' : `Revoked ${dateTime(key.revokedAt)}`) },
        { label: 'Revoke', cell: action },
      ]}
    />
  );
}

/** The new key in a read-only field (selected on focus) and a Copy button: shown this once. */
function NewKey({ name, apiKey }: { name: string; apiKey: string }) {
  const [copied, setCopied] = useState<string>();
  const id = useId();
  const field = useRef<HTMLInputElement>(null);

  async function copy() {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(apiKey);
      setCopied('Copied.');
    } catch {
      // No clipboard permission: the key is selected for the viewer to copy.
      setCopied('Selected: copy it with your keyboard or menu.');
    }
  }

  return (
    <div className="one-time">
      <label htmlFor={id}>New key for {name}</label>
      <div className="row new-key">
        <input ref={field} id={id} readOnly value={apiKey} aria-describedby={`${id}-note`} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <small id={`${id}-note`}>It will not be shown again: only its hash is kept. Copy it now and keep it secret.</small>
      <Status message={copied} />
    </div>
  );
}

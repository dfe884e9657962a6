import { useState, type FormEvent } from 'react';
import { staffRoles, type StaffRole } from '../../../../../modules/staff/permissions.js';
import { InviteStaffDocument, RemoveStaffDocument, SetStaffRoleDocument, StaffListDocument, type StaffListQuery } from '../generated/graphql.js';
import { Dialog, Field, FormError, Loading, Status, Table, dateTime, fieldError, formText } from '../ui.js';
import { useMutation, useQuery } from '../use-query.js';
import { useViewer } from '../viewer.js';

type Member = StaffListQuery['staff'][number];

/** Owners: the account's staff, an invitation (a one-time sign-in link to hand over), role changes and removal. */
export function StaffPage() {
  const { viewer } = useViewer();
  const list = useQuery(StaffListDocument, {});
  const setRole = useMutation(SetStaffRoleDocument);
  const remove = useMutation(RemoveStaffDocument);
  const [removing, setRemoving] = useState<Member>();
  const [message, setMessage] = useState<string>();
  const failure = setRole.error ?? remove.error;

  return (
    <>
      <h1>Staff</h1>
      <InviteForm onInvited={list.refetch} />
      <Status message={failure?.message ?? message} kind={failure ? 'error' : 'info'} />
      {list.error ? (
        <p className="error" role="alert">
          {list.error.message}
        </p>
      ) : !list.data ? (
        <Loading what="staff" />
      ) : (
        <Table<Member>
          caption="Staff of the account"
          rows={list.data.staff}
          rowKey={(member) => member.id}
          empty="No staff."
          columns={[
            { label: 'Email', cell: (member) => member.email },
            {
              label: 'Role',
              cell: (member) => (
                <select
                  aria-label={`Role of ${member.email}`}
                  value={member.role}
                  disabled={member.email === viewer.email || setRole.pending}
                  onChange={(event) =>
                    void setRole.run({ staffId: member.id, role: event.currentTarget.value as StaffRole }).then((answer) => {
                      if (!answer) return;
                      setMessage(`${member.email} is now ${answer.setStaffRole.role}.`);
                      list.refetch();
                    })
                  }
                >
                  {staffRoles.map((role) => (
                    <option key={role} value={role}>
                      {role}
                    </option>
                  ))}
                </select>
              ),
            },
            { label: 'Password', cell: (member) => (member.passwordSet ? 'Set' : 'Invited') },
            { label: 'Two-factor', cell: (member) => (member.secondFactorEnabled ? 'On' : 'Off') },
            {
              label: 'Remove',
              cell: (member) =>
                member.email === viewer.email ? (
                  'You'
                ) : (
                  <button type="button" className="danger" onClick={() => setRemoving(member)} aria-label={`Remove ${member.email}`}>
                    Remove
                  </button>
                ),
            },
          ]}
        />
      )}
      <Dialog open={removing !== undefined} title={`Remove ${removing?.email ?? ''}?`} onClose={() => setRemoving(undefined)}>
        <p>They lose access to the account at once: their sessions end.</p>
        <div className="row end">
          <button type="button" onClick={() => setRemoving(undefined)}>
            Cancel
          </button>
          <button
            type="button"
            className="danger"
            disabled={remove.pending}
            onClick={() =>
              void remove.run({ staffId: removing!.id }).then((answer) => {
                setRemoving(undefined);
                if (answer === undefined) return;
                setMessage(`${removing!.email} was removed.`);
                list.refetch();
              })
            }
          >
            Remove from the account
          </button>
        </div>
      </Dialog>
    </>
  );
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const invite = useMutation(InviteStaffDocument);
  const [invited, setInvited] = useState<{ email: string; link: string | null; expiresAt: string | null }>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const email = formText(form, 'email').trim();
    const answer = await invite.run({ email, role: formText(form, 'role') as StaffRole });
    if (answer) {
      setInvited({ email, link: answer.inviteStaff.link, expiresAt: answer.inviteStaff.expiresAt });
      formElement.reset();
      onInvited();
    }
  }

  return (
    <form className="card stack invite" onSubmit={(event) => void submit(event)} aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a staff member</h2>
      <div className="form-grid">
        <Field label="Staff email" name="email" type="email" autoComplete="off" required maxLength={254} error={fieldError(invite.error, 'email')} />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" name="role" defaultValue="support">
            {staffRoles.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </div>
      </div>
      <FormError error={invite.error} fields={['email', 'role']} />
      <button type="submit" className="primary" disabled={invite.pending}>
        Invite
      </button>
      {invited?.link && (
        <div className="one-time">
          <label htmlFor="invite-link">One-time sign-in link for {invited.email}</label>
          <input id="invite-link" readOnly value={invited.link} onFocus={(event) => event.currentTarget.select()} />
          <small>Shown once; it works until {dateTime(invited.expiresAt)}. Hand it over yourself: it lets them choose their password.</small>
        </div>
      )}
      {invited && !invited.link && <Status message={`${invited.email} already signs in elsewhere with their own password: they choose this account when signing in.`} />}
    </form>
  );
}

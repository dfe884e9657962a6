import { useRef, type FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { SearchFansDocument, type SearchFansQuery } from '../generated/graphql.js';
import { fanName, useCursorTrail } from '../paging.js';
import { Loading, Pager, Status, Table, dateTime, formText } from '../ui.js';
import { useQuery } from '../use-query.js';

type FanRow = SearchFansQuery['fans']['edges'][number]['node'];

const pageSize = 20;

/** Fan search: email, name, username, member id or a network's user id; the search and the page are in the URL. */
export function FanSearch() {
  const [params, setParams] = useSearchParams();
  const search = params.get('q') ?? '';
  const trail = useCursorTrail();
  const input = useRef<HTMLInputElement>(null);
  const answer = useQuery(SearchFansDocument, { search, first: pageSize, after: trail.after }, { skip: search === '' });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const q = formText(new FormData(event.currentTarget), 'q').trim();
    setParams(q ? { q } : {});
  }

  const rows = answer.data?.fans.edges.map((edge) => edge.node) ?? [];
  return (
    <>
      <h1>Fans</h1>
      <Status message={params.get('erased') ?? undefined} />
      <form role="search" className="search" onSubmit={submit}>
        <input
          ref={input}
          key={search}
          type="search"
          name="q"
          aria-label="Search fans"
          placeholder="Email, name, username, member id or network id"
          defaultValue={search}
          maxLength={200}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.currentTarget.value = '';
              setParams({});
            }
          }}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      {search === '' ? (
        <p className="muted">Find a fan by email, name, username, member id or a network&apos;s user id.</p>
      ) : answer.error ? (
        <p className="error" role="alert">
          {answer.error.message}
        </p>
      ) : !answer.data ? (
        <Loading what="fans" />
      ) : (
        <>
          <Table<FanRow>
            caption={`Fans matching “${search}”`}
            rows={rows}
            rowKey={(fan) => fan.id}
            empty={`No fan matches “${search}”.`}
            columns={[
              { label: 'Fan', cell: (fan) => <Link href={`/fans/${fan.id}/profile`}>{fanName(fan)}</Link> },
              { label: 'Email', cell: (fan) => fan.email ?? '—' },
              { label: 'Username', cell: (fan) => fan.username ?? '—' },
              { label: 'Member id', cell: (fan) => fan.id },
              { label: 'Joined', cell: (fan) => dateTime(fan.createdAt) },
              { label: 'Last sign-in', cell: (fan) => dateTime(fan.lastLoginAt) },
            ]}
          />
          <Pager hasPrevious={trail.hasPrevious} hasNext={answer.data.fans.pageInfo.hasNextPage} onPrevious={trail.previous} onNext={() => trail.next(answer.data?.fans.pageInfo.endCursor)} />
        </>
      )}
    </>
  );
}

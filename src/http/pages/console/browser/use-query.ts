import { useCallback, useEffect, useRef, useState } from 'react';
import type { TypedDocumentString } from './generated/graphql.js';
import { request, RequestError } from './request.js';

export interface QueryState<R> {
  data?: R;
  error?: RequestError;
  loading: boolean;
  /** Asks again (after a mutation: the console keeps no cache, so what it shows is what the server has). */
  refetch: () => void;
}

function asRequestError(error: unknown): RequestError {
  return error instanceof RequestError ? error : new RequestError((error as Error).message, 0);
}

/**
 * Runs a query when it mounts and whenever its variables change. An answer to an older request
 * (variables changed, or the screen left, since it was sent) is dropped: its request is aborted and
 * a generation counter guards against one that was already on its way.
 */
export function useQuery<R, V>(document: TypedDocumentString<R, V>, variables: V, options: { skip?: boolean } = {}): QueryState<R> {
  const [state, setState] = useState<{ data?: R; error?: RequestError; loading: boolean }>({ loading: !options.skip });
  const [asked, setAsked] = useState(0);
  const generation = useRef(0);
  const key = JSON.stringify(variables);

  useEffect(() => {
    if (options.skip) return;
    const mine = ++generation.current;
    const controller = new AbortController();
    setState((previous) => ({ data: previous.data, loading: true }));
    request(document, JSON.parse(key) as V, controller.signal).then(
      (data) => {
        if (mine === generation.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (mine !== generation.current || controller.signal.aborted) return;
        setState({ error: asRequestError(error), loading: false });
      },
    );
    return () => controller.abort();
  }, [document, key, asked, options.skip]);

  const refetch = useCallback(() => setAsked((count) => count + 1), []);
  return { ...state, refetch };
}

/** A mutation's runner: its pending flag and last error, for a form's button and messages. */
export function useMutation<R, V>(document: TypedDocumentString<R, V>) {
  const [state, setState] = useState<{ pending: boolean; error?: RequestError }>({ pending: false });
  const run = useCallback(
    async (variables: V): Promise<R | undefined> => {
      setState({ pending: true });
      try {
        const data = await request(document, variables);
        setState({ pending: false });
        return data;
      } catch (error) {
        setState({ pending: false, error: asRequestError(error) });
        return undefined;
      }
    },
    [document],
  );
  const reset = useCallback(() => setState({ pending: false }), []);
  return { ...state, run, reset };
}

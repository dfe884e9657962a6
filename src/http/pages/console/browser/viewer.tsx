import { createContext, useContext } from 'react';
import type { Permission } from '../../../../modules/staff/permissions.js';
import type { ViewerQuery } from './generated/graphql.js';

export type Viewer = NonNullable<ViewerQuery['viewer']>;

export interface ViewerState {
  viewer: Viewer;
  /** Asks the server who is signed in again (after sign-out, a password or second-factor change). */
  refresh: () => void;
}

export const ViewerContext = createContext<ViewerState | null>(null);

export function useViewer(): ViewerState {
  const state = useContext(ViewerContext);
  if (!state) throw new Error('useViewer outside a signed-in console.');
  return state;
}

/** Whether the viewer's role holds the permission: what the console shows. The server checks it again on each operation. */
export function useCan(permission: Permission): boolean {
  return useViewer().viewer.permissions.includes(permission);
}

import type { AppDeps } from '../wiring/app-deps';

/** The ops page's handlers take the app's dependencies and the request's one clock reading. */
export type AdminDeps = AppDeps & { now: Date };

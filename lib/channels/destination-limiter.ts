// PLACEHOLDER until the limiter lands: replaced wholesale at merge.
import type { ChannelKind } from './channel';

export const destinationKey = (kind: ChannelKind, destination: string) => `${kind}:${destination}`;
export function createDestinationLimiter(_deps: { clock: () => Date; sleep: (ms: number) => Promise<void> }) {
  return { take: async (_key: string, _kind: ChannelKind) => {}, hold: (_key: string, _ms: number) => {} };
}

import { startChannelStandIn, type ChannelStandIn } from '../channel-stand-in/server';
import { startMailSink, type MailSink } from '../mail-sink/server';
import { startModelFake, type ModelFake } from '../model-fake/server';
import { startFeedServer, type FeedServer } from '../sample-feed/server';
import { startFirestoreEmulator } from './firestore-emulator';
import type { StackPorts } from './local-env';

export type LocalStack = {
  mailSink: MailSink;
  feeds: FeedServer;
  modelFake?: ModelFake;
  channelStandIn?: ChannelStandIn;
  firestoreHost: string;
  stop(): Promise<void>;
};

/**
 * The emulator, the mail sink and the sample feed, each on its port of `ports`; the model fake too when `ports.modelFake` is set,
 * and the channel stand-in when `ports.channelStandIn` is.
 * `sampleClock`: the sample feed's clock, which the sample kinds date their fixtures by — a replay of one day passes that day's.
 */
export async function startLocalStack(
  ports: StackPorts,
  log: (line: string) => void = console.log,
  sampleClock?: () => Date,
): Promise<LocalStack> {
  log(`• Firestore emulator on 127.0.0.1:${ports.firestore} (Java; first start takes a few seconds)`);
  const emulator = await startFirestoreEmulator({ port: ports.firestore });
  log(`• Mail sink on http://127.0.0.1:${ports.mailSink} (inbox page at /)`);
  const mailSink = await startMailSink({ port: ports.mailSink });
  log(`• Sample feed on http://127.0.0.1:${ports.feed}/sample.xml`);
  const feeds = await startFeedServer({ port: ports.feed, ...(sampleClock ? { now: sampleClock } : {}) });
  let modelFake: ModelFake | undefined;
  if (ports.modelFake !== undefined) {
    modelFake = await startModelFake({ port: ports.modelFake });
    log(`• Model fake on ${modelFake.baseUrl} (model ${modelFake.models[0]}, any API key)`);
  }
  let channelStandIn: ChannelStandIn | undefined;
  if (ports.channelStandIn !== undefined) {
    channelStandIn = await startChannelStandIn({ port: ports.channelStandIn });
    log(`• Channel stand-in on ${channelStandIn.url} (Slack, Discord, Telegram's Bot API, webhooks; what arrived at /_stand-in/received)`);
  }
  return {
    mailSink,
    feeds,
    modelFake,
    channelStandIn,
    firestoreHost: emulator.host,
    async stop() {
      await channelStandIn?.close();
      await modelFake?.close();
      await feeds.close();
      await mailSink.close();
      await emulator.stop();
    },
  };
}

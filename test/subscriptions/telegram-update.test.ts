import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readChatMessage } from '../../lib/subscriptions/telegram-update';

/** Real updates Telegram sent a bot (fixtures/telegram/README.md), with only `text` or the chat changed where said. */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/telegram/${name}`, import.meta.url), 'utf8'));
const withText = (text: string, chat: Record<string, unknown> = {}) => {
  const update = fixture('private-text-message.json');
  return JSON.stringify({ ...update, message: { ...update.message, text, chat: { ...update.message.chat, ...chat } } });
};

describe('readChatMessage: what the bot reads of a Telegram update', () => {
  it('reads the captured private message: the chat, who it is as a label, the text as a command', () => {
    expect(readChatMessage(JSON.stringify(fixture('private-text-message.json')))).toEqual({
      updateId: 841266257,
      chatId: '234140659',
      label: '@zhmurko',
      command: { command: 'other' },
    });
  });

  it('reads /start with its token (also addressed to the bot by name), and /stop', () => {
    expect(readChatMessage(withText('/start abc_DEF-123'))?.command).toEqual({ command: 'start', token: 'abc_DEF-123' });
    expect(readChatMessage(withText('/start@ScoutTestBot abc'))?.command).toEqual({ command: 'start', token: 'abc' });
    expect(readChatMessage(withText('/start'))?.command).toEqual({ command: 'start', token: null });
    expect(readChatMessage(withText('/stop'))?.command).toEqual({ command: 'stop' });
    expect(readChatMessage(withText('/start a b'))?.command).toEqual({ command: 'other' });
  });

  it('ignores what is not a private text message: a callback query, a shared chat, a bot, a body that is not an update', () => {
    expect(readChatMessage(JSON.stringify(fixture('callback-query.json')))).toBeNull();
    expect(readChatMessage(withText('/start abc', { id: -1001234567890, type: 'supergroup', title: 'Jobs' }))).toBeNull();
    const fromBot = fixture('private-text-message.json');
    fromBot.message.from.is_bot = true;
    expect(readChatMessage(JSON.stringify(fromBot))).toBeNull();
    expect(readChatMessage('not json')).toBeNull();
    expect(readChatMessage('{"message": {"text": "/start abc"}}')).toBeNull();
  });

  it('labels a chat without a username by the first name', () => {
    const update = fixture('private-text-message.json');
    delete update.message.from.username;
    expect(readChatMessage(JSON.stringify(update))?.label).toBe('Dmitry');
  });
});

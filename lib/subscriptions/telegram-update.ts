import { z } from 'zod';

/**
 * The part of Telegram's Update (https://core.telegram.org/bots/api#update) the bot reads: a text
 * message in a chat. Every other field, and every other kind of update (edited messages, callback
 * queries, member changes), is left alone: zod drops unknown keys instead of refusing them, so a
 * field Telegram adds tomorrow breaks nothing.
 */
const updateSchema = z.object({
  update_id: z.number().int(),
  message: z
    .object({
      message_id: z.number().int(),
      chat: z.object({ id: z.number().int(), type: z.string() }),
      from: z
        .object({
          id: z.number().int(),
          is_bot: z.boolean().optional(),
          first_name: z.string().optional(),
          username: z.string().optional(),
        })
        .optional(),
      text: z.string().optional(),
    })
    .optional(),
});

export type BotCommand = { command: 'start'; token: string | null } | { command: 'stop' } | { command: 'other' };

/** A private chat's text message, as the bot reads it; null for anything it ignores (chats of several people, Telegram channels, other updates). */
export type ChatMessage = { updateId: number; chatId: string; label: string; command: BotCommand };

export function readChatMessage(body: string): ChatMessage | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = updateSchema.safeParse(json);
  if (!parsed.success || !parsed.data.message) return null;
  const { chat, from, text } = parsed.data.message;
  // Alerts go to one person's chat: a /start in a shared chat would send someone's matches to everyone in it.
  if (chat.type !== 'private' || from?.is_bot) return null;
  return { updateId: parsed.data.update_id, chatId: String(chat.id), label: labelOf(from), command: commandOf(text ?? '') };
}

/** `@username`, else the first name, else the chat's id: what the preferences page shows of the chat. */
function labelOf(from: { first_name?: string; username?: string } | undefined): string {
  if (from?.username) return `@${from.username}`.slice(0, 40);
  if (from?.first_name) return from.first_name.slice(0, 40);
  return 'Telegram chat';
}

/** `/start TOKEN`, `/start@ScoutBot TOKEN` (how a command addressed to the bot may arrive), `/stop`; anything else. */
function commandOf(text: string): BotCommand {
  const match = /^\/(start|stop)(?:@[A-Za-z0-9_]+)?(?:\s+(\S+))?\s*$/.exec(text.trim());
  if (!match) return { command: 'other' };
  return match[1] === 'stop' ? { command: 'stop' } : { command: 'start', token: match[2] ?? null };
}

/**
 * Text from outside as feeds and boards send it, for every surface that shows a posting: markup,
 * entities, quotes, `javascript:` URLs, emoji and half an emoji, right-to-left text and its
 * override, control characters, very long and empty strings. The emails' prerendering test and the
 * channel formats' tests (test/channels/formats) both render every one of them.
 */
export const HOSTILE_TEXTS = [
  '<script>alert("x")</script>',
  'Tom & Jerry &amp; co',
  `"double" and 'single' quotes`,
  'javascript:alert(1)',
  ' \tJaVa\nScRiPt:alert(1)',
  'https://example.com/a?b=1&c=<2>',
  '🚀 rocket role 👩🏽‍💻',
  '🚀'.slice(0, 1) + ' half an emoji',
  '\u202Egnp.exe — right-to-left override',
  'שלום עולם مرحبا',
  'nul\u0000 and bell\u0007',
  '\uE000 0\uE001 looks like a slot \uE002 1\uE003 \uE004',
  'x'.repeat(3_000),
  ' ',
  '',
];

/**
 * What a chat platform reads as a command rather than text: Slack's special mentions and links,
 * Discord's mentions, masked links, spoilers and markdown, Telegram's tags, an entity that must not
 * be decoded twice, and the invisible characters that hide a mention or flip a line.
 */
export const CHAT_HOSTILE_TEXTS = [
  '<!channel> everyone look',
  '<!here> now',
  '<!everyone>',
  '@everyone ping',
  '@here ping',
  '<@123> and <@U024BE7LH|bob>',
  '<#123> and <#C024BE7LR|general>',
  '<@&123> role',
  '[click](https://evil.example)',
  '</b><a href="https://evil.example">x</a><b>',
  '&lt;b&gt; already escaped &amp; more',
  '*bold* _italic_ ~strike~ `code` ```block```',
  '**very bold** __underline__',
  '||spoiler||',
  '> quoted\n# heading\n- list item',
  '<https://evil.example|innocent label>',
  'a\u202Eevil\u202C b',
  '@\u200Deveryone zero-width joiner',
  'e\u200Bveryone and 👨‍👩‍👧 family',
  '\\*escaped\\* backslashes \\',
];

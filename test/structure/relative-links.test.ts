import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands alone: every link in the README and docs/ either leaves for a public URL or
 * lands on a file of this repository, and a link to a heading (`page.md#heading`) lands on a
 * heading that exists, by GitHub's own slug rules. A clone from GitHub has nothing beside it.
 */
const ROOT = resolve(__dirname, '../..');

function markdownPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), ...docs];
}

/** `[text](target)` and `![alt](target)`, outside fenced code; the target up to a space or `)`. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** The anchors GitHub gives a page's headings (duplicates get -1, -2, …), and any explicit `<a id>`. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  const headings = [...prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) =>
    slugger.slug(
      m[1]
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/`/g, '')
        .replace(/<[^>]+>/g, ''),
    ),
  );
  const explicit = [...prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map((m) => m[1]);
  return new Set([...headings, ...explicit]);
}

const isExternal = (target: string) => /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(target);

describe('every relative link in the README and docs/ lands inside the repository', () => {
  const pages = markdownPages();

  it.each(pages.map((page) => [relative(ROOT, page), page]))('%s', (_name, page) => {
    const markdown = readFileSync(page, 'utf8');
    const dead: string[] = [];
    for (const link of linksOf(markdown)) {
      if (isExternal(link)) continue;
      const [path, anchor] = link.split('#', 2);
      const target = path ? resolve(dirname(page), decodeURIComponent(path)) : page;
      if (!target.startsWith(`${ROOT}/`) && target !== ROOT) {
        dead.push(`${link} (outside the repository)`);
        continue;
      }
      if (!existsSync(target)) {
        dead.push(`${link} (no such file)`);
        continue;
      }
      if (anchor && target.endsWith('.md') && statSync(target).isFile() && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
        dead.push(`${link} (no such heading)`);
    }
    expect(dead).toEqual([]);
  });

  it('finds the links it checks (a parser that finds none would pass everything)', () => {
    const all = pages.flatMap((page) => linksOf(readFileSync(page, 'utf8')));
    expect(all.filter((link) => !isExternal(link)).length).toBeGreaterThan(50);
    expect(anchorsOf('## Floor and bill\n## A partial run that resumes (2026-12-06)\n## Floor and bill')).toEqual(
      new Set(['floor-and-bill', 'a-partial-run-that-resumes-2026-12-06', 'floor-and-bill-1']),
    );
  });
});

describe('nothing in the repository points at what a clone does not have', () => {
  const tracked = (folder: string) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(?:ts|tsx|mjs|cjs|js|md|sh)$/.test(name) && !name.includes('corpus') && !name.includes('node_modules'))
      .map((name) => join(folder, name));
  const files = ['README.md', ...['lib', 'app', 'scripts', 'test', 'docs', '.ci'].flatMap(tracked)];

  it('no tracker numbers, no shared design document, no path beside the repository', () => {
    const found = files.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          // Spelled in pieces so this very file does not match itself.
          [/\b[Ii]ssue #?\d+/, new RegExp(['DES', 'IGN(?:\\.md| §)'].join('')), new RegExp(['\\.\\./', 'shared/'].join(''))].some((rule) =>
            rule.test(line),
          )
            ? [`${file}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });
});

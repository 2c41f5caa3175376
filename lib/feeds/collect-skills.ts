import { collapseWhitespace } from './plain-text';

const MAX_SKILLS = 30;
const MAX_SKILL_LENGTH = 60;
const SKILLS_LINE = /^[ \t]*(?:skills?|required skills|skills required)[ \t]*:[ \t]*(.+)$/gim;

/** The comma-separated lists on every "Skills: a, b, c" line of a plain-text description. */
export function findSkillsLines(text: string): string[] {
  return [...text.matchAll(SKILLS_LINE)].flatMap((match) => match[1].split(/[,;|•·]/));
}

/**
 * Trimmed, deduped case-insensitively (the first spelling wins), at most 30.
 * Over-long "skills" are junk rather than skills and are dropped.
 */
export function collectSkills(candidates: Iterable<string>): string[] {
  const skills: string[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const skill = collapseWhitespace(candidate);
    if (!skill || skill.length > MAX_SKILL_LENGTH) continue;
    const key = skill.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    skills.push(skill);
    if (skills.length === MAX_SKILLS) break;
  }
  return skills;
}

import { describe, expect, it } from 'vitest';
import { canonicalUrl, FINGERPRINT_MIN_DESCRIPTION_CHARS, jobFingerprint, normaliseText } from '../../lib/feeds/job-identity';
import { postingKeyIds, urlsNamingSeveralJobs } from '../../lib/feeds/posting-keys';

const DESCRIPTION =
  'Acme is hiring a senior React engineer to rebuild our customer dashboard. You will own the front end, work closely with design, and ship weekly. Budget: $300 fixed. Ref 48213.';

describe('canonicalUrl: links to one job page are one URL', () => {
  it('drops the scheme, www., the host case, a default port, the fragment and a trailing slash', () => {
    expect(canonicalUrl('https://www.Acme.COM:443/jobs/42/#apply')).toBe('acme.com/jobs/42');
    expect(canonicalUrl('http://acme.com/jobs/42')).toBe('acme.com/jobs/42');
    expect(canonicalUrl('https://acme.com/')).toBe('acme.com');
  });

  it('drops tracking parameters of every common kind and sorts the rest', () => {
    const tracked =
      'https://jobs.acme.com/42?utm_source=board&utm_medium=rss&gclid=x&fbclid=y&ref=hn&source=feed&gh_src=abc&lever-source=linkedin&lever-origin=applied&mc_cid=1&mc_eid=2&b=2&a=1';
    expect(canonicalUrl(tracked)).toBe('jobs.acme.com/42?a=1&b=2');
    expect(canonicalUrl('https://jobs.acme.com/42?UTM_Campaign=spring')).toBe('jobs.acme.com/42');
  });

  it('keeps the parameters that name the job, and the path as written', () => {
    expect(canonicalUrl('https://acme.com/careers?gh_jid=4012&utm_source=x')).toBe('acme.com/careers?gh_jid=4012');
    expect(canonicalUrl('https://acme.com/careers?gh_jid=4012')).not.toBe(canonicalUrl('https://acme.com/careers?gh_jid=4013'));
    expect(canonicalUrl('https://jobs.lever.co/acme/AbC-123')).toBe('jobs.lever.co/acme/AbC-123');
  });

  it('is null for what is not an http(s) URL', () => {
    expect(canonicalUrl(null)).toBeNull();
    expect(canonicalUrl('not a url')).toBeNull();
    expect(canonicalUrl('javascript:alert(1)')).toBeNull();
    expect(canonicalUrl('ftp://acme.com/jobs/42')).toBeNull();
  });
});

describe('jobFingerprint: copies of one job share it', () => {
  const job = { company: 'Acme', title: 'Senior React Engineer', description: DESCRIPTION };

  it('ignores case, whitespace, punctuation, accents, leftover markup and a legal-form suffix', () => {
    const copy = {
      company: 'ACME, Inc.',
      title: '  senior   react engineer!! ',
      description: `<p>${DESCRIPTION.toUpperCase().replace(/ /g, '\n  ')}</p>&amp;`,
    };
    expect(jobFingerprint(copy)).toBe(jobFingerprint(job));
    expect(normaliseText('Développeur  Réact—Senior')).toBe('developpeur react senior');
  });

  it('ignores the numbers of a description: a raised budget or another reference number is the same job', () => {
    const reposted = { ...job, description: DESCRIPTION.replace('$300', '$600').replace('48213', '99120') };
    expect(jobFingerprint(reposted)).toBe(jobFingerprint(job));
  });

  it('reads only the opening of the description: boards that cut the tail differently still agree', () => {
    const long = `${DESCRIPTION} ${'We value calm, careful work and clear writing. '.repeat(30)}`;
    expect(jobFingerprint({ ...job, description: long })).toBe(jobFingerprint({ ...job, description: `${long} Apply today!` }));
  });

  it('tells different jobs apart: another title (digits count there), company or description', () => {
    const fp = jobFingerprint(job);
    expect(jobFingerprint({ ...job, title: 'Senior React Engineer II' })).not.toBe(fp);
    expect(jobFingerprint({ ...job, title: 'Staff React Engineer' })).not.toBe(fp);
    expect(jobFingerprint({ ...job, company: 'Globex' })).not.toBe(fp);
    expect(jobFingerprint({ ...job, description: DESCRIPTION.replace('customer dashboard', 'billing system') })).not.toBe(fp);
  });

  it('is null without a company unless the description is long enough to tell jobs apart, and null without a title', () => {
    const short = { company: null, title: 'React dev wanted', description: 'React help needed. Budget: $300' };
    expect(jobFingerprint(short)).toBeNull();
    expect(jobFingerprint({ ...short, company: 'Acme' })).not.toBeNull();
    expect(jobFingerprint({ company: null, title: 'React dev wanted', description: DESCRIPTION })).not.toBeNull();
    expect(normaliseText(DESCRIPTION).length).toBeGreaterThanOrEqual(FINGERPRINT_MIN_DESCRIPTION_CHARS);
    expect(jobFingerprint({ ...job, title: ' !! ' })).toBeNull();
  });
});

describe('postingKeyIds', () => {
  it('names the URL key first (it wins over the fingerprint), then the fingerprint', () => {
    const keys = postingKeyIds({ url: 'https://acme.com/jobs/42?utm_source=x', company: 'Acme', title: 'React', description: DESCRIPTION });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^url_[\w-]{20}$/);
    expect(keys[1]).toMatch(/^fp_[\w-]{20}$/);
    expect(postingKeyIds({ url: null, company: null, title: 'React', description: 'short' })).toEqual([]);
  });

  it('leaves out a URL one answer gives to jobs with different titles (a front page, a search): it names no job', () => {
    const answer = [
      { url: 'https://board.example/jobs?utm_source=rss', title: 'React engineer' },
      { url: 'https://board.example/jobs', title: 'Go engineer' },
      { url: 'https://board.example/jobs/7', title: 'Designer' },
      { url: 'https://board.example/jobs/7?ref=x', title: 'Designer' },
    ];
    const notJobs = urlsNamingSeveralJobs(answer);
    expect([...notJobs]).toEqual(['board.example/jobs']);
    const keys = postingKeyIds({ ...answer[0], company: null, description: '' }, notJobs);
    expect(keys).toEqual([]);
    expect(postingKeyIds({ ...answer[2], company: null, description: '' }, notJobs)).toHaveLength(1);
  });
});

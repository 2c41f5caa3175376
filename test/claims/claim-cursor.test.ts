import { describe, expect, it } from 'vitest';
import {
  advanceClaimCursor,
  donePairs,
  inRing,
  MAX_PASS_POSTINGS,
  passKey,
  unreachedPairs,
  type ClaimCursor,
} from '../../lib/claims/claim-cursor';

const cutShort = (postings: string[], resumeAfter: string | null, gaveUp = 0) => ({ postings, resumeAfter, truncated: true, gaveUp });

describe('the claim cursor', () => {
  it('a ring of uids (from, through] wraps past the last uid, and an empty ring holds nobody', () => {
    expect(inRing('b', 'a', 'c')).toBe(true);
    expect(inRing('a', 'a', 'c')).toBe(false);
    expect(inRing('c', 'a', 'c')).toBe(true);
    expect(inRing('z', 'x', 'b')).toBe(true);
    expect(inRing('a', 'x', 'b')).toBe(true);
    expect(inRing('m', 'x', 'b')).toBe(false);
    expect(inRing('a', '', 'b')).toBe(true);
    expect(inRing('m', 'c', 'c')).toBe(false);
  });

  it('a run cut short names the pairs it claimed (its postings × the subscribers it walked) and nothing else', () => {
    const { cursor } = advanceClaimCursor(null, cutShort(['p1', 'p2'], 'uid-2'));
    expect(cursor).toEqual({ resumeAfter: 'uid-2', passes: [{ from: '', through: 'uid-2', postings: ['p1', 'p2'] }] });
    const done = donePairs(cursor);
    expect(done('uid-1', { id: 'p1' })).toBe(true);
    expect(done('uid-2', { id: 'p2' })).toBe(true);
    expect(done('uid-3', { id: 'p1' })).toBe(false);
    expect(done('uid-1', { id: 'p3' })).toBe(false);
  });

  it('the next run grows the pass by the ring it walked; a new posting starts a pass of its own ring', () => {
    const first = advanceClaimCursor(null, cutShort(['p1'], 'uid-2')).cursor;
    const { cursor, closed } = advanceClaimCursor(first, cutShort(['p1', 'p9'], 'uid-4'));
    expect(closed).toEqual([]);
    expect(cursor!.passes).toEqual([
      { from: '', through: 'uid-4', postings: ['p1'] },
      { from: 'uid-2', through: 'uid-4', postings: ['p9'] },
    ]);
    const done = donePairs(cursor);
    expect(done('uid-1', { id: 'p1' })).toBe(true);
    expect(done('uid-1', { id: 'p9' })).toBe(false);
    expect(done('uid-3', { id: 'p9' })).toBe(true);
  });

  it('a pass whose ring closes is done for everybody: its postings come back to be closed', () => {
    const first = advanceClaimCursor(null, cutShort(['p1'], 'uid-4')).cursor;
    const second = advanceClaimCursor(first, cutShort(['p1', 'p9'], 'uid-6')).cursor;
    // The third run walks past the end of the uids and on to uid-1: the first pass's ring is whole.
    const { cursor, closed } = advanceClaimCursor(second, cutShort(['p1', 'p9'], 'uid-1'));
    expect(closed).toEqual(['p1']);
    expect(cursor!.passes).toEqual([{ from: 'uid-4', through: 'uid-1', postings: ['p9'] }]);
  });

  it('a run that gives up on a subscriber names no pair done; a run not cut short clears the cursor', () => {
    const first = advanceClaimCursor(null, cutShort(['p1'], 'uid-2')).cursor;
    expect(advanceClaimCursor(first, cutShort(['p1'], 'uid-4', 1)).cursor).toEqual({ resumeAfter: 'uid-4', passes: [] });
    expect(advanceClaimCursor(first, { postings: ['p1'], resumeAfter: null, truncated: false, gaveUp: 0 })).toEqual({
      cursor: null,
      closed: [],
    });
  });

  it('a run that walked nobody changes nothing (no write); a posting the run did not have keeps its pass as it was', () => {
    const first = advanceClaimCursor(null, cutShort(['p1', 'p2'], 'uid-2')).cursor;
    expect(advanceClaimCursor(first, cutShort(['p1'], 'uid-2')).cursor).toBe(first);
    const { cursor } = advanceClaimCursor(first, cutShort(['p1'], 'uid-4'));
    expect(cursor!.passes).toEqual([
      { from: '', through: 'uid-2', postings: ['p2'] },
      { from: '', through: 'uid-4', postings: ['p1'] },
    ]);
  });

  it('a pass left by an overlapping run (it ends elsewhere) is kept as it was, and the run walked starts a pass of its own', () => {
    const elsewhere: ClaimCursor = { resumeAfter: 'uid-3', passes: [{ from: '', through: 'uid-2', postings: ['p1'] }] };
    const { cursor } = advanceClaimCursor(elsewhere, cutShort(['p1'], 'uid-5'));
    expect(cursor!.passes).toEqual([
      { from: '', through: 'uid-2', postings: ['p1'] },
      { from: 'uid-3', through: 'uid-5', postings: ['p1'] },
    ]);
    const done = donePairs(cursor);
    expect([1, 2, 3, 4, 5].map((i) => done(`uid-${i}`, { id: 'p1' }))).toEqual([true, true, false, true, true]);
  });

  it('an edited posting (a new revision) is matched again: a pass names each posting with its revision', () => {
    const { cursor } = advanceClaimCursor(null, cutShort([passKey({ id: 'p1', revision: 1 })], 'uid-2'));
    const done = donePairs(cursor);
    expect(done('uid-1', { id: 'p1', revision: 1 })).toBe(true);
    expect(done('uid-1', { id: 'p1', revision: 2 })).toBe(false);
    expect(done('uid-1', { id: 'p1' })).toBe(false);
  });

  it('the passes name at most MAX_PASS_POSTINGS postings: the oldest are forgotten first', () => {
    const many = (tag: string) => Array.from({ length: MAX_PASS_POSTINGS / 2 + 1 }, (_, i) => `${tag}${i}`);
    const first = advanceClaimCursor(null, cutShort(many('a'), 'uid-2')).cursor;
    const { cursor } = advanceClaimCursor(first, cutShort(many('b'), 'uid-4'));
    expect(cursor!.passes.map((p) => p.postings[0])).toEqual(['b0']);
  });

  it('the pairs no run reached yet are a pass’s postings outside its ring, for a pass that ends where the next run starts', () => {
    const cursor: ClaimCursor = {
      resumeAfter: 'uid-4',
      passes: [
        { from: '', through: 'uid-4', postings: ['p1'] },
        // Left by an overlapping run: it ends elsewhere, so what lies outside it is not known.
        { from: '', through: 'uid-2', postings: ['p2'] },
      ],
    };
    const unreached = unreachedPairs(cursor);
    expect(unreached('uid-5', { id: 'p1' })).toBe(true);
    expect(unreached('uid-3', { id: 'p1' })).toBe(false);
    expect(unreached('uid-5', { id: 'p2' })).toBe(false);
    expect(unreached('uid-5', { id: 'p3' })).toBe(false);
    expect(unreachedPairs(null)('uid-5', { id: 'p1' })).toBe(false);
  });
});

import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { capText, collapseWhitespace } from '../feeds/plain-text';
import type { Posting } from '../feeds/posting';
import { COLLECTIONS } from '../store/collections';
import { addDays, toDate, toTimestamp, type Stored } from '../store/timestamps';

/**
 * feedback/{uid}_{jobId}: a subscriber said "not a fit" about one posting they were sent. Written
 * once with create() (a second click, or eight at once, finds it and changes nothing) and read
 * twice: the latest few go to the model as counter-examples (counter-examples.ts), and the
 * preferences page looks for an exclude they have in common (suggest-exclude.ts).
 *
 * It keeps a snapshot of the posting, not only its id: jobs/ documents expire after
 * RETENTION_DAYS from their fetch, and a counter-example must still read as one after that. The
 * snapshot is plain text (the posting's own, already cleaned), capped, with email addresses taken
 * out: it outlives the posting, and nobody's contact details need to. Nothing in it grows with
 * the data; the text fields are exempt from indexing (firestore.indexes.json).
 */
export type Feedback = {
  uid: string;
  jobId: string;
  /** At most MAX_FEEDBACK_TITLE_LENGTH characters. */
  title: string;
  /** The start of the description, at most MAX_FEEDBACK_EXCERPT_LENGTH characters. */
  description: string;
  /** The posting's skills, at most MAX_FEEDBACK_SKILLS (the feeds keep 30 of up to 60 characters). */
  skills: string[];
  source: string;
  createdAt: Date;
  /** RETENTION_DAYS after the click: counter-examples are the subscriber's recent taste, not a history. */
  expireAt: Date;
};

/** A posting title's own cap (to-posting.ts): the whole title is kept. */
export const MAX_FEEDBACK_TITLE_LENGTH = 300;
/** Enough to say what the posting was; five of them stay small in a model request. */
export const MAX_FEEDBACK_EXCERPT_LENGTH = 300;
export const MAX_FEEDBACK_SKILLS = 30;

/** The pair's id: the same as its delivery's and its verdict's, so all three are keyed by the data. */
export const feedbackId = (uid: string, jobId: string) => `${uid}_${jobId}`;

export const feedbackConverter: FirestoreDataConverter<Feedback> = {
  toFirestore: (f) => ({
    ...f,
    createdAt: toTimestamp(f.createdAt as Date),
    expireAt: toTimestamp(f.expireAt as Date),
  }),
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<Feedback>;
    return {
      uid: d.uid,
      jobId: d.jobId,
      title: typeof d.title === 'string' ? d.title : '',
      description: typeof d.description === 'string' ? d.description : '',
      skills: Array.isArray(d.skills) ? d.skills.filter((s: unknown): s is string => typeof s === 'string') : [],
      source: d.source ?? '',
      createdAt: toDate(d.createdAt) ?? new Date(0),
      expireAt: toDate(d.expireAt) ?? new Date(0),
    };
  },
};

export const feedbackCollection = (db: Firestore) => db.collection(COLLECTIONS.feedback).withConverter(feedbackConverter);
export const feedbackRef = (db: Firestore, uid: string, jobId: string) => feedbackCollection(db).doc(feedbackId(uid, jobId));

// Something@something.tld, however it is wrapped: enough to keep an address out, not a validator.
const EMAIL_ADDRESS = /[^\s@<>()[\]"',;:]+@[^\s@<>()[\]"',;:]+\.[\p{L}]{2,}/gu;

/** One line of plain text, addresses taken out, at most `max` characters. */
const snapshotText = (text: string, max: number) => capText(collapseWhitespace(text.replace(EMAIL_ADDRESS, '[email]')), max);

/** The feedback document for a posting the subscriber marked, as of `now`. */
export function notAFitFeedback(input: {
  uid: string;
  posting: Pick<Posting, 'id' | 'title' | 'description' | 'skills' | 'source'>;
  now: Date;
  retentionDays: number;
}): Feedback {
  const { posting } = input;
  return {
    uid: input.uid,
    jobId: posting.id,
    title: snapshotText(posting.title, MAX_FEEDBACK_TITLE_LENGTH),
    description: snapshotText(posting.description, MAX_FEEDBACK_EXCERPT_LENGTH),
    skills: posting.skills.slice(0, MAX_FEEDBACK_SKILLS).map((skill) => snapshotText(skill, 60)),
    source: posting.source,
    createdAt: input.now,
    expireAt: addDays(input.now, input.retentionDays),
  };
}

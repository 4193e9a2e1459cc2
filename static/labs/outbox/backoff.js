// How long the phone waits before sending a kept action again: Lesson 13's retry.
//
// Exponential backoff (1 s, 2 s, 4 s, ... doubling up to a ceiling of 60 s: a school's link
// may be down for minutes, and a phone asking every second would only spend its battery),
// with full jitter: the wait is drawn anywhere between zero and that backoff, so a class
// whose link comes back at one instant does not send all its kept work in the same moment.
// Pure: `random` is passed in, so the tests give it fixed draws.

export const BASE_MS = 1000;
export const CEILING_MS = 60000;

/** The backoff before retry number `attempt` (0 for the first retry), capped at `ceiling`. */
export function backoff(attempt, base = BASE_MS, ceiling = CEILING_MS) {
  if (!Number.isInteger(attempt) || attempt < 0) {
    throw new RangeError("attempt must be a whole number from 0, not " + attempt);
  }
  // 2 ** 1024 is Infinity: past the ceiling long before, so cap the exponent too.
  return Math.min(ceiling, base * 2 ** Math.min(attempt, 52));
}

/** Full jitter: a wait drawn uniformly from [0, backoff(attempt)), whole milliseconds. */
export function fullJitter(attempt, random = Math.random, base = BASE_MS, ceiling = CEILING_MS) {
  return Math.floor(random() * backoff(attempt, base, ceiling));
}

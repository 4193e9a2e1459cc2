// What an answer to a kept action means for the outbox: sent (done, whatever it said), or
// not sent after all (ask again later). Pure, so the tests can give it any answer.
//
// Asked again: no answer at all (status 0: the link is down); a 409 with Retry-After (this
// same action, by its key, is still being worked on: labs/web/idempotency.py); a timeout;
// and a gateway's 500/502/504 when the server behind it is away. Every other answer is the
// site's word on the action (a chart, a form with a message beside a field, a refusal that
// says why) and is shown where the action was made, as htmx would have shown it.

const AGAIN = new Set([0, 408, 425, 500, 502, 504]);

/** "retry" or "sent", from the status and a header reader `header(name) -> string|null`. */
export function outcomeOf(status, header) {
  if (AGAIN.has(status)) return "retry";
  if (status === 409 && header("Retry-After") !== null) return "retry";
  return "sent";
}

// The answers htmx swaps in on this site (templates/base.html's htmx-config): 2xx, 3xx and
// the 4xx/429/503 that carry a form or a reason in words.
const SHOWN = /^(2..|3..|400|401|403|404|409|410|422|429|503)$/;

/** Whether an answer's body belongs in the page (htmx's rule for this site). */
export function shown(status) {
  return SHOWN.test(String(status));
}

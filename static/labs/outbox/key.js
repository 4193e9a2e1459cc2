// An idempotency key: a version 4 UUID, made when the action is made (labs/web/idempotency.py).
// crypto.randomUUID exists only on https:// or localhost; a school's server on its own network
// is often plain http://, where getRandomValues still works.

export function newKey(source = globalThis.crypto) {
  if (source && typeof source.randomUUID === "function") return source.randomUUID();
  const b = source.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; // version 4
  b[8] = (b[8] & 0x3f) | 0x80; // the RFC 4122 variant
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
}

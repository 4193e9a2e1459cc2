"""Every page a student and a teacher can reach, read as a person reads it.

`build_school` makes the people, a class, an assignment, a hand-in and a finished run of every
lab (simulations computed here, real-queue experiments from their stored results), so a crawl
needs no worker and sees the same pages every time. `visible_text` reads what is on the
screen: the page's text with every <details> opened, and the words Plotly draws in its SVG
(titles, axes, legends, notes), leaving out code (a `pre` or `code` block is code, not UI).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tests.browser.pages import charts, words_problems
from tests.glossary import glossary

# What a page shows, read in the browser: <details> opened, code left out, chart words added.
VISIBLE_TEXT_JS = """
() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const chartWords = [];
  document.querySelectorAll(".main-svg text").forEach((t) => {
    const words = (t.textContent || "").trim();
    if (words) chartWords.push(words);
  });
  const placeholders = Array.from(document.querySelectorAll("[placeholder]"))
    .map((e) => e.getAttribute("placeholder"));
  // What a screen reader says for a button or link with no words of its own (Plotly's
  // toolbar), and Plotly's hover label for the same buttons.
  const labels = Array.from(document.querySelectorAll("[aria-label], .modebar-btn[data-title]"))
    .map((e) => e.getAttribute("aria-label") || e.getAttribute("data-title"));
  document.querySelectorAll("pre, code, .main-svg, script, style").forEach((e) => {
    e.replaceWith(document.createTextNode(" "));
  });
  return [document.body.innerText, ...chartWords, ...placeholders, ...labels].join("\\n");
}
"""

# Latin-script words a Marathi page may show: the terms docs/glossary-mr.md keeps in English,
# names of things (products, libraries, protocols), units, short symbols and the yes/no values
# shown as typed (true, false). Anything else in
# Latin script is a word that was not translated.
ALLOWED_WORDS = """
    queue queues worker workers retry retries DLQ circuit breaker breakers Redis SQS Lambda
    KEDA FIFO Celery Django Plotly htmx CSV JSON PDF Markdown API HTTP HTTPS URL id ids
    ms s min h ok OK p50 p90 p95 p99 CPU DB SMS SLA SLO RPS TTL backlog backoff jitter
    idempotency idempotent key keys poison maxReceiveCount visibility
    timeout timeouts redrive purge drain lease batch fan-out fanout
    x y vs e.g i.e kg kB MB GB KB Mbps req yr mo d
    true false
"""
# Names of products, libraries and places a page mentions: they have no Marathi.
NAMES = """
    Amazon AWS CloudWatch Application Auto Scaling Elastic Load Balancing boto3 boto tenacity
    pybreaker HikariCP SQLAlchemy PostgreSQL Envoy NAT Availability Zone AZ AZs Asia Kolkata
    ApproximateAgeOfOldestMessage Plotly.js RFC Gunicorn Prometheus Kubernetes ScaledObject
    Little Little's
"""
ALLOWED = frozenset(word.lower() for word in (ALLOWED_WORDS + NAMES).split())
ALLOWED |= glossary().kept_words()

# English UI phrases that must never be on a Marathi page (the catalogue's own msgids are
# checked too): the ones the crawl first found, and the site's most seen words.
KNOWN_ENGLISH = [
    "Sign out",
    "Log in",
    "Your runs",
    "Run again",
    "Download as CSV",
    "Page not found",
    "Submit this run",
    "Compare",
    "Gradebook",
    "permalink",
]


# The elements that stick out past the viewport while their parent fits: what to fix when a
# page scrolls sideways.
TOO_WIDE_JS = """
() => {
  const vw = document.documentElement.clientWidth, out = [];
  const classes = (e) => (typeof e.className === "string" && e.className.trim())
    ? "." + e.className.trim().split(/\\s+/).join(".") : "";
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + classes(e);
  document.querySelectorAll("body *").forEach((e) => {
    const r = e.getBoundingClientRect(), p = e.parentElement;
    if (r.right > vw + 1 && p && p.getBoundingClientRect().right <= vw + 1) {
      out.push(name(p) + " > " + name(e) + " " + Math.round(r.right) + "px");
    }
  });
  return out.slice(0, 8);
}
"""


# Catalogue msgids that are names, not UI English: an HTTP status line stays as it is sent.
NOT_ENGLISH_UI = {"429 Too Many Requests"}


# Marathi drawn in a font that has no Devanagari shows as empty boxes on a device without
# a Devanagari font of its own (the test machine is one): each element whose own words are
# Devanagari must have the site's Devanagari font in its font stack.
NO_DEVANAGARI_FONT_JS = """
() => {
  const out = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!e || !/[\u0900-\u097f]/.test(node.textContent)) continue;
    const box = e.closest("select") || e;
    if (!box.getClientRects().length) continue;
    if (!getComputedStyle(box).fontFamily.includes("Noto Sans Devanagari")) {
      const cls = typeof box.className === "string" ? box.className.trim() : "";
      out.add(box.tagName.toLowerCase() + (cls ? "." + cls.split(/\\s+/).join(".") : ""));
    }
  }
  return Array.from(out).slice(0, 8);
}
"""


@dataclass
class Crawled:
    """One page read: its name, address, width in CSS pixels and the words on it."""

    name: str
    url: str
    width: int
    text: str
    english: list[str] = field(default_factory=list)
    too_wide: list[str] = field(default_factory=list)
    boxes: list[str] = field(default_factory=list)  # elements whose Marathi shows as boxes
    charts: list[str] = field(default_factory=list)  # chart words drawn over others, or cut
    squeezed: list[str] = field(default_factory=list)  # a run's facts in a sliver of a phone


# On a phone a run's facts (its parameters above all) get the screen's width: labels in a
# column beside them left the values a few characters wide, broken inside every name.
SQUEEZED_FACTS_JS = """
() => innerWidth > 560 ? [] : Array.from(document.querySelectorAll('.run-facts dd'))
  .filter((d) => d.getBoundingClientRect().width < innerWidth * 0.6)
  .map((d) => {
    const label = d.previousElementSibling.textContent.trim();
    return `${label}: ${Math.round(d.getBoundingClientRect().width)} px`;
  })
"""


def latin_runs(text: str, typed: frozenset[str] = frozenset()) -> list[str]:
    """Runs of two or more Latin-script words that are not allowed technical words, numbers
    or units: the English a Marathi reader would trip over. `typed` are words a person typed
    (a username, a value in a form), shown as typed."""
    allowed = ALLOWED | typed
    runs: list[str] = []
    for line in text.splitlines():
        current: list[str] = []
        for token in re.split(r"(\s+)", line):
            if not token.strip():
                continue
            bare = token.strip(".,:;!?()[]{}\"'“”‘’«»—–-/=<>*·…%+")
            if re.fullmatch(r"[A-Za-z][A-Za-z'’-]*", bare) and bare.lower() not in allowed:
                current.append(bare)
                continue
            if re.fullmatch(r"[A-Za-z]*", bare) and current and bare.lower() in allowed:
                current.append(bare)  # a technical word inside an English run stays in it
                continue
            if sum(1 for w in current if w.lower() not in allowed) >= 2:
                runs.append(" ".join(current))
            current = []
        if sum(1 for w in current if w.lower() not in allowed) >= 2:
            runs.append(" ".join(current))
    return runs


@cache
def catalogue_msgids() -> tuple[str, ...]:
    """The English of every translated sentence: on a Marathi page, any of these showing is a
    string that missed the catalogue. Only ones of three or more words with no placeholder
    (shorter ones are also parameter names and technical words)."""
    from django.conf import settings

    po = Path(settings.BASE_DIR) / "locale" / "mr" / "LC_MESSAGES" / "django.po"
    found = []
    for block in po.read_text(encoding="utf-8").split("\n\n"):
        match = re.search(r'^msgid ((?:".*"\n?)+)', block, re.M)
        if not match:
            continue
        msgid = "".join(re.findall(r'"(.*)"', match.group(1))).replace('\\"', '"')
        if "%" in msgid or "{" in msgid or "\\n" in msgid or "<" in msgid:
            continue
        words = msgid.split()
        if len(words) >= 3 and " ".join(words) not in NOT_ENGLISH_UI:
            found.append(" ".join(words))
    return tuple(found)


def english_on(text: str) -> list[str]:
    """The known English phrases shown on a page, with a few words either side."""
    flat = " ".join(text.split())
    shown = []
    for phrase in (*KNOWN_ENGLISH, *catalogue_msgids()):
        pattern = r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])"
        if re.search(pattern, flat):
            shown.append(phrase)
    return shown


def read(page, name: str) -> Crawled:
    # The charts' words are measured before the page's <details> are opened to read them.
    chart_words = [p for c in charts(page) if c["drawn"] for p in words_problems(c)]
    width = page.evaluate("() => document.documentElement.scrollWidth")
    too_wide = page.evaluate(TOO_WIDE_JS) if width > page.viewport_size["width"] else []
    boxes = page.evaluate(NO_DEVANAGARI_FONT_JS)
    text = page.evaluate(VISIBLE_TEXT_JS)
    crawled = Crawled(name=name, url=page.url, width=width, text=text)
    crawled.english = english_on(text)
    crawled.too_wide = too_wide
    crawled.boxes = boxes
    crawled.charts = chart_words
    crawled.squeezed = page.evaluate(SQUEEZED_FACTS_JS)
    return crawled

"""Which of a page's draft posts is the newest: the number each post carries, kept in Redis.

A lab page numbers its draft posts (`static/labs/drafts.js`: 1, 2, 3 … per page load) and
sends the number with a random id of the page load. Two posts of one page can be on their
way at once (the release's post goes beside the one in flight; the outbox sends a kept
draft again after a gap), and on a loaded site the older can arrive second. Judged by
arrival, that older post deleted the newer one's queued draft and computed its own value,
which the page then dropped as old: the chart never showed the value the hand let go at.

So the server keeps, per student, lab and page load, the highest number taken
(`take`), in Redis: the web runs as several processes on several machines, and a post's
place must hold across all of them. Taking is one Lua script (compare and set, atomic in
Redis). A post whose number is below one already taken is superseded: it is answered so,
and deletes and computes nothing. `labs.runs.drafts.start_draft` takes the number with the
student's row locked, before it deletes anything, so of two posts the older can never
delete what the newer made.

- A reloaded page has a new id, so its numbers start again without being refused as old;
  two tabs of one lab have an id each and never refuse each other's posts.
- A post without a number (a page cached before this) is taken as before: newest by arrival.
- Each page's key lives `ORDER_TTL_S` after its last post. Past it (or evicted, or with
  Redis not answering) a post is taken, as before: the order is a guard, not a record.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import redis
from django.core.cache import cache

logger = logging.getLogger(__name__)

# A page's newest number is kept this long after its last post: far longer than any post
# stays on its way (a kept draft's replay after a gap included), short enough that pages
# closed long ago leave nothing behind.
ORDER_TTL_S = 3600

# KEYS[1]: the page's newest number; ARGV[1]: this post's; ARGV[2]: the TTL. Answers the
# newest number after this post: its own if taken, a higher one if it was superseded.
_TAKE = """
local newest = tonumber(redis.call('GET', KEYS[1]))
local post = tonumber(ARGV[1])
if newest and newest > post then return newest end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return post
"""


@dataclass(frozen=True)
class Order:
    """A draft post's place: its page load's id and its number on that page."""

    page: str
    post: int


def key(user_pk: int, lab_slug: str, page: str) -> str:
    """The Redis key (under the cache's prefix) of a page's newest draft number."""
    return cache.make_and_validate_key(f"draft-order:{user_pk}:{lab_slug}:{page}")


def take(user_pk: int, lab_slug: str, order: Order) -> bool:
    """Record `order` as its page's newest post; False if a newer post was already taken.

    The same number twice is taken both times (one post sent again). If Redis does not
    answer, the post is taken (logged): refusing drafts while the cache is away would
    freeze every chart, and the worst without the check is the old "newest by arrival".
    """
    try:
        client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
        newest = client.eval(_TAKE, 1, key(user_pk, lab_slug, order.page), order.post, ORDER_TTL_S)
    except (redis.RedisError, OSError) as exc:
        logger.warning("draft order not checked (Redis): %s", exc)
        return True
    return int(newest) <= order.post

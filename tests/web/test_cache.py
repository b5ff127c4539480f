"""The site's LRU map (bot.web.cache): counted in values or weighed in bytes, the least
recently used dropped first."""

from __future__ import annotations

from bot.web.cache import Lru


def test_it_keeps_the_most_recently_used_values_up_to_its_size() -> None:
    lru: Lru[str] = Lru(2)
    lru.put("a", "1")
    lru.put("b", "2")
    assert lru.get("a") == "1"  # a is now the most recent: b goes first
    lru.put("c", "3")
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == ("1", None, "3")
    assert len(lru) == 2


def test_weighed_it_keeps_values_up_to_their_total_weight() -> None:
    lru: Lru[bytes] = Lru(10, weigh=len)
    lru.put("a", b"x" * 4)
    lru.put("b", b"x" * 4)
    assert lru.weight == 8 and len(lru) == 2
    lru.put("c", b"x" * 3)  # 11 > 10: the oldest goes
    assert lru.get("a") is None and lru.get("b") is not None and lru.weight == 7
    lru.put("b", b"x" * 10)  # put again, heavier: its old weight no longer counts
    assert lru.weight == 10 and lru.get("c") is None and len(lru) == 1
    lru.put("d", b"x" * 10)  # exactly the size fits
    assert lru.get("d") is not None and lru.get("b") is None and lru.weight == 10


def test_a_value_heavier_than_the_whole_cache_is_not_kept() -> None:
    lru: Lru[bytes] = Lru(10, weigh=len)
    lru.put("small", b"x")
    lru.put("big", b"x" * 11)
    assert lru.get("big") is None and lru.get("small") == b"x" and lru.weight == 1
    lru.put("small", b"x" * 11)  # replaced by one too heavy: gone, not kept stale
    assert lru.get("small") is None and lru.weight == 0 and len(lru) == 0
    nothing: Lru[bytes] = Lru(0, weigh=len)  # CALICO_WEB_PICTURE_CACHE_MB=0
    nothing.put("a", b"x")
    assert nothing.get("a") is None

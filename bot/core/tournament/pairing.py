"""Tournament arithmetic, pure (no I/O, no clock, no randomness): points of a table, standings
with their tie-breaks, Swiss pairing and the round-robin schedule. The tournament service
(:mod:`bot.core.tournament.rounds`) stores what these return; the property tests
(``tests/core/tournament/test_pairing.py``) and ``benchmarks/bench_tournament.py`` call them
directly.

Points are kept in **half points** (integers: no rounding anywhere). At a table every player
scores, against each other player, 2 half points for finishing ahead, 1 for a shared place and 0
for finishing behind: a two-player game is the usual 1 / ½ / 0, a four-player game 3 / 2 / 1 / 0
(in points) from first to last. A bye is worth a win at a full table.

**Swiss** (:func:`swiss_round`): players are ranked by points, then rating, then id. With
two-player tables and an odd count, the bye goes to the lowest-ranked player among those with
the fewest byes so far (byes spread before anything else). Tables are filled top-down with the
highest unseated player and the next ones who have met none of that table before; a bounded
depth-first search backs up when the bottom of the list is left with only repeats, so no two
players meet twice while another pairing avoids it (within :data:`SEARCH_BUDGET` steps,
which is exhaustive for a dozen players and never reached in practice above that). When repeats
cannot be avoided the fewest are taken, greedily. Tables of three or four are as even as the
count allows (seven players at tables of three: 3, 2, 2), with no bye.

**Round-robin** (:func:`round_robin`): two-player tables follow the circle method (everyone
meets everyone once, a bye each round for an odd count); larger tables are filled greedily, each
headed by the player with the most opponents still to meet among those not yet seated and filled
with those who met fewest of the table, a few seatings tried per round (a fixed seed: the same
entrants always get the same schedule) and the one meeting the most new pairs kept, until every
pair has met. O(n³) for n entrants (O(n²) a round); within the entrant caps of
:mod:`bot.core.tournament.model` it takes at most 20 rounds (``tests/core/tournament/
test_pairing.py`` checks every count) and milliseconds (``benchmarks/bench_tournament.py``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

SEARCH_BUDGET = 200_000  # search steps per pairing before settling for the greedy one


# --------------------------------------------------------------------------- points


def table_points(places: Sequence[int]) -> tuple[int, ...]:
    """Half points of each seat at one table from the places (1 = first; ties share one)."""
    return tuple(sum(2 if p < q else 1 if p == q else 0
                     for j, q in enumerate(places) if j != i)
                 for i, p in enumerate(places))


def bye_points(table_size: int) -> int:
    """Half points of a bye: a win at a full table."""
    return 2 * (table_size - 1)


@dataclass(frozen=True, slots=True)
class Played:
    """One finished table of a round: its players with their half points and game scores
    (a bye: one player, no game)."""

    round: int
    players: tuple[int, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]

    @property
    def bye(self) -> bool:
        return len(self.players) == 1


@dataclass(frozen=True, slots=True)
class Standing:
    user_id: int
    points: int  # half points
    buchholz: int  # half points: the opponents' points summed, game by game (Swiss)
    games: int  # games played (byes not counted)
    score: int  # Calico points scored over those games
    byes: int
    rank: int  # equal points, tie-break and score share a rank


def standings(entrants: Iterable[int], played: Iterable[Played], *,
              buchholz: bool = True) -> list[Standing]:
    """Every entrant's standing, best first: points, then Buchholz (when ``buchholz``), then
    game score, then id (a fixed order for equal lines, which share their rank)."""
    ids = list(dict.fromkeys(entrants))
    tables = list(played)
    points = dict.fromkeys(ids, 0)
    games = dict.fromkeys(ids, 0)
    score = dict.fromkeys(ids, 0)
    byes = dict.fromkeys(ids, 0)
    for t in tables:
        for uid, pts, sc in zip(t.players, t.points, t.scores, strict=True):
            points[uid] = points.get(uid, 0) + pts
            if t.bye:
                byes[uid] = byes.get(uid, 0) + 1
            else:
                games[uid] = games.get(uid, 0) + 1
                score[uid] = score.get(uid, 0) + sc
    tie = dict.fromkeys(ids, 0)
    if buchholz:
        for t in tables:
            if t.bye:
                continue
            for uid in t.players:
                if uid in tie:
                    tie[uid] += sum(points.get(o, 0) for o in t.players if o != uid)

    def key(uid: int) -> tuple[int, int, int, int]:
        return (-points[uid], -tie[uid], -score[uid], uid)

    out: list[Standing] = []
    for i, uid in enumerate(sorted(ids, key=key)):
        rank = i + 1
        if out and key(uid)[:3] == key(out[-1].user_id)[:3]:
            rank = out[-1].rank
        out.append(Standing(uid, points[uid], tie[uid], games[uid], score[uid], byes[uid], rank))
    return out


# --------------------------------------------------------------------------- pairing


@dataclass(frozen=True, slots=True)
class Seed:
    """A player to pair: their points so far, rating (higher is stronger) and byes."""

    user_id: int
    points: int = 0
    rating: float = 0.0
    byes: int = 0


@dataclass(frozen=True, slots=True)
class Pairing:
    tables: tuple[tuple[int, ...], ...]
    bye: int | None = None
    repeats: int = 0  # pairs at these tables that had met before


def met_pairs(played: Iterable[Played]) -> set[frozenset[int]]:
    """Every pair of players who shared a table."""
    met: set[frozenset[int]] = set()
    for t in played:
        for a, b in combinations(t.players, 2):
            met.add(frozenset((a, b)))
    return met


def table_sizes(n: int, table_size: int) -> list[int]:
    """How ``n`` players sit at tables of at most ``table_size`` (two-player tables: pairs, the
    odd one out has a bye and is not counted here; larger tables: as even as possible)."""
    if n < 2:
        return []
    if table_size <= 2:
        return [2] * (n // 2)
    count = -(-n // table_size)
    base, extra = divmod(n, count)
    return [base + 1] * extra + [base] * (count - extra)


def ranked(seeds: Iterable[Seed]) -> list[Seed]:
    return sorted(seeds, key=lambda s: (-s.points, -s.rating, s.user_id))


class _Budget(Exception):  # noqa: N818 - a signal
    pass


def _members(head: int, free: list[int], need: int, met: set[frozenset[int]],
             budget: list[int]) -> Iterator[list[int]]:
    """Choices of ``need`` players of ``free`` (in order) who met nobody at ``head``'s table."""
    def pick(start: int, table: list[int]) -> Iterator[list[int]]:
        if len(table) == need + 1:
            yield table[1:]
            return
        for i in range(start, len(free)):
            budget[0] -= 1
            if budget[0] < 0:
                raise _Budget
            cand = free[i]
            if any(frozenset((cand, x)) in met for x in table):
                continue
            yield from pick(i + 1, [*table, cand])

    return pick(0, [head])


def _search(order: list[int], sizes: list[int], met: set[frozenset[int]],
            budget: list[int]) -> list[tuple[int, ...]] | None:
    """Tables without a repeat, filled top-down (None: there are none). One stack frame per
    table (512 players at two-player tables: 256), the choices within a table lazily."""
    tables: list[tuple[int, ...]] = []

    def fill(index: int, free: list[int]) -> bool:
        if index == len(sizes):
            return True
        head, rest = free[0], free[1:]
        for members in _members(head, rest, sizes[index] - 1, met, budget):
            tables.append((head, *members))
            taken = set(members)
            if fill(index + 1, [u for u in rest if u not in taken]):
                return True
            tables.pop()
        return False

    return tables if fill(0, list(order)) else None


def _greedy(order: list[int], sizes: list[int],
            met: set[frozenset[int]]) -> list[tuple[int, ...]]:
    """Tables with the fewest repeats a top-down pass finds (when none avoids them all)."""
    free = list(order)
    tables = []
    for size in sizes:
        table = [free.pop(0)]
        while len(table) < size:
            best = min(range(len(free)),
                       key=lambda i: (sum(frozenset((free[i], x)) in met for x in table), i))
            table.append(free.pop(best))
        tables.append(tuple(table))
    return tables


def _repeats(tables: Iterable[tuple[int, ...]], met: set[frozenset[int]]) -> int:
    return sum(frozenset(p) in met for t in tables for p in combinations(t, 2))


def swiss_round(seeds: Sequence[Seed], played: Iterable[Played], table_size: int = 2,
                budget: int = SEARCH_BUDGET) -> Pairing:
    """The next Swiss round for ``seeds`` (the players still in), given the tables played."""
    met = met_pairs(played)
    order = [s.user_id for s in ranked(seeds)]
    if len(order) < 2:
        return Pairing((), order[0] if order else None)
    steps = [budget]
    if table_size <= 2 and len(order) % 2:
        fewest = min(s.byes for s in seeds)
        by_id = {s.user_id: s for s in seeds}
        candidates = [u for u in reversed(order) if by_id[u].byes == fewest]
        sizes = table_sizes(len(order) - 1, 2)
        for bye in candidates:
            rest = [u for u in order if u != bye]
            try:
                found = _search(rest, sizes, met, steps)
            except _Budget:
                break
            if found is not None:
                return Pairing(tuple(found), bye)
        bye = candidates[0]
        rest = [u for u in order if u != bye]
        tables = _greedy(rest, sizes, met)
        return Pairing(tuple(tables), bye, _repeats(tables, met))
    sizes = table_sizes(len(order), table_size)
    try:
        found = _search(order, sizes, met, steps)
    except _Budget:
        found = None
    if found is not None:
        return Pairing(tuple(found))
    tables = _greedy(order, sizes, met)
    return Pairing(tuple(tables), None, _repeats(tables, met))


def next_swiss(active: Sequence[int], played: Sequence[Played], ratings: dict[int, float],
               table_size: int = 2) -> Pairing:
    """The next Swiss round of the players still in (``active``) from the tables played:
    their standings, then :func:`swiss_round` (``ratings``: by user id, to order equal
    points). Pure, and picklable in and out: the tournament runs it off the event loop."""
    board = {s.user_id: s for s in standings(active, played)}
    seeds = [Seed(uid, board[uid].points, ratings.get(uid, 0.0), board[uid].byes)
             for uid in active]
    return swiss_round(seeds, played, table_size)


# --------------------------------------------------------------------------- round-robin


def round_robin(players: Sequence[int], table_size: int = 2) -> list[Pairing]:
    """The whole fixed schedule for ``players`` (in sign-up order), round by round, until every
    pair has met (see the module docstring)."""
    ids = list(players)
    if len(ids) < 2:
        return []
    if table_size <= 2:
        return _circle(ids)
    unmet = {u: set(ids) - {u} for u in ids}
    sizes = table_sizes(len(ids), table_size)
    rounds: list[Pairing] = []
    rng = random.Random(len(ids) * 8 + table_size)  # fixed: the schedule is a function
    # A round meets at least one new pair while any is left, so this bound is never reached.
    while any(unmet.values()) and len(rounds) < len(ids) * len(ids):
        best: tuple[int, list[tuple[int, ...]]] | None = None
        for attempt in range(ATTEMPTS):
            jitter = {u: rng.random() if attempt else 0.0 for u in ids}
            found = _rr_round(ids, sizes, unmet, jitter)
            if best is None or found[0] > best[0]:
                best = found
        assert best is not None
        for t in best[1]:
            for a, b in combinations(t, 2):
                unmet[a].discard(b)
                unmet[b].discard(a)
        rounds.append(Pairing(tuple(best[1])))
    return rounds


ATTEMPTS = 6  # seatings tried per round-robin round (the one meeting most new pairs is kept)


def _rr_round(ids: list[int], sizes: list[int], unmet: dict[int, set[int]],
              jitter: dict[int, float]) -> tuple[int, list[tuple[int, ...]]]:
    """One round-robin round, greedily: each table is headed by the free player with the most
    free opponents still to meet, and filled with those who met fewest of the table. Returns
    (new pairs met, tables). ``owed`` (unmet opponents still free) is kept up to date as
    players sit down, so a round costs O(n²) and a schedule O(n³)."""
    order = {u: i for i, u in enumerate(ids)}
    free = set(ids)
    owed = {u: len(unmet[u]) for u in ids}

    def sit(u: int) -> None:
        free.discard(u)
        for o in unmet[u]:
            if o in free:
                owed[o] -= 1

    tables: list[tuple[int, ...]] = []
    gained = 0
    for size in sizes:
        head = max(free, key=lambda u: (owed[u], jitter[u], -order[u]))
        sit(head)
        table = [head]
        while len(table) < size:
            nxt = max(free, key=lambda u: (sum(x in unmet[u] for x in table), owed[u],
                                           jitter[u], -order[u]))
            gained += sum(x in unmet[nxt] for x in table)
            sit(nxt)
            table.append(nxt)
        tables.append(tuple(table))
    return gained, tables


def _circle(ids: list[int]) -> list[Pairing]:
    ring: list[int | None] = [*ids, None] if len(ids) % 2 else list(ids)
    n = len(ring)
    rounds = []
    for _ in range(n - 1):
        tables: list[tuple[int, ...]] = []
        bye = None
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
                continue
            tables.append((a, b))
        rounds.append(Pairing(tuple(tables), bye))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds

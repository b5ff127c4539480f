"""Property tests of the tournament arithmetic (:mod:`bot.core.tournament.pairing`): nobody
meets twice while a pairing avoids it, byes spread, every player is seated once at even tables,
standings come in order, and the round-robin schedule covers every pair."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.tournament.model import MAX_ROUNDS, ROUND_ROBIN, max_entrants
from bot.core.tournament.pairing import (
    Played,
    Seed,
    bye_points,
    round_robin,
    standings,
    swiss_round,
    table_points,
)


def perfect_without(players: list[int], met: set[frozenset[int]]) -> bool:
    """Whether ``players`` (an even count) pair up with no pair in ``met`` (brute force)."""
    if not players:
        return True
    head, rest = players[0], players[1:]
    return any(frozenset((head, o)) not in met
               and perfect_without([x for x in rest if x != o], met) for o in rest)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Seed], list[Played]]:
    n = draw(st.integers(2, 9))
    ids = list(range(1, n + 1))
    pairs = list(combinations(ids, 2))
    met = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    played = [Played(1, p, (2, 0), (60, 50)) for p in met]
    seeds = [Seed(u, draw(st.integers(0, 6)), draw(st.floats(-5, 30)), draw(st.integers(0, 1)))
             for u in ids]
    return seeds, played


@settings(max_examples=120)
@given(histories())
def test_no_repeat_pairing_while_one_avoids_it(history: tuple[list[Seed], list[Played]]) -> None:
    seeds, played = history
    met = {frozenset(t.players) for t in played}
    got = swiss_round(seeds, played, 2)
    seated = [u for t in got.tables for u in t] + ([got.bye] if got.bye is not None else [])
    assert sorted(seated) == sorted(s.user_id for s in seeds)
    assert all(len(t) == 2 for t in got.tables)
    repeats = sum(frozenset(t) in met for t in got.tables)
    assert repeats == got.repeats
    ids = [s.user_id for s in seeds]
    if len(ids) % 2:
        fewest = min(s.byes for s in seeds)
        assert got.bye in [s.user_id for s in seeds if s.byes == fewest]  # byes spread first
        avoidable = any(perfect_without([u for u in ids if u != s.user_id], met)
                        for s in seeds if s.byes == fewest)
    else:
        assert got.bye is None
        avoidable = perfect_without(ids, met)
    if avoidable:
        assert repeats == 0


@settings(max_examples=20)
@given(st.integers(3, 13).filter(lambda n: n % 2 == 1), st.randoms(use_true_random=False))
def test_byes_spread_over_a_whole_swiss(n: int, rng: object) -> None:
    import random
    assert isinstance(rng, random.Random)
    ids = list(range(1, n + 1))
    played: list[Played] = []
    for round_no in range(1, n + 1):
        board = {s.user_id: s for s in standings(ids, played)}
        seeds = [Seed(u, board[u].points, rng.random(), board[u].byes) for u in ids]
        got = swiss_round(seeds, played, 2)
        assert got.bye is not None
        played.append(Played(round_no, (got.bye,), (bye_points(2),), (0,)))
        for t in got.tables:
            places = (1, 2) if rng.random() < 0.5 else (2, 1)
            played.append(Played(round_no, t, table_points(places), (50, 40)))
        byes = [s.byes for s in standings(ids, played)]
        assert max(byes) - min(byes) <= 1


@settings(max_examples=50)
@given(st.integers(2, 30), st.integers(3, 4), st.randoms(use_true_random=False))
def test_bigger_tables_seat_everyone_evenly(n: int, size: int, rng: object) -> None:
    import random
    assert isinstance(rng, random.Random)
    seeds = [Seed(u, rng.randrange(8), rng.random()) for u in range(n)]
    got = swiss_round(seeds, [], size)
    assert got.bye is None and got.repeats == 0
    assert sorted(u for t in got.tables for u in t) == list(range(n))
    lengths = [len(t) for t in got.tables]
    assert max(lengths) - min(lengths) <= 1 and min(lengths) >= 2 and max(lengths) <= size


@st.composite
def results(draw: st.DrawFn) -> tuple[list[int], list[Played]]:
    ids = list(range(1, draw(st.integers(2, 12)) + 1))
    played = []
    for round_no in range(1, draw(st.integers(1, 4)) + 1):
        order = draw(st.permutations(ids))
        size = draw(st.integers(2, 4))
        for i in range(0, len(order), size):
            seat = tuple(order[i:i + size])
            if len(seat) == 1:
                played.append(Played(round_no, seat, (bye_points(size),), (0,)))
                continue
            places = [draw(st.integers(1, len(seat))) for _ in seat]
            scores = tuple(draw(st.integers(20, 90)) for _ in seat)
            played.append(Played(round_no, seat, table_points(places), scores))
    return ids, played


@settings(max_examples=80)
@given(results(), st.booleans())
def test_standings_come_in_order(data: tuple[list[int], list[Played]], buchholz: bool) -> None:
    ids, played = data
    board = standings(ids, played, buchholz=buchholz)
    assert sorted(s.user_id for s in board) == ids
    keys = [(s.points, s.buchholz, s.score) for s in board]
    assert keys == sorted(keys, reverse=True)
    for s in board:
        assert s.rank == 1 + sum(k > (s.points, s.buchholz, s.score) for k in keys)
        assert s.points == sum(p for t in played for u, p in zip(t.players, t.points,
                                                                    strict=True) if u == s.user_id)
        if not buchholz:
            assert s.buchholz == 0
    total = sum(sum(t.points) for t in played)
    assert sum(s.points for s in board) == total


def test_table_points() -> None:
    assert table_points([1, 2]) == (2, 0)
    assert table_points([1, 1]) == (1, 1)
    assert table_points([2, 1, 3, 4]) == (4, 6, 2, 0)
    assert table_points([1, 2, 2]) == (4, 1, 1)


@given(st.integers(2, 14), st.integers(2, 4))
def test_round_robin_covers_every_pair(n: int, size: int) -> None:
    ids = list(range(100, 100 + n))
    schedule = round_robin(ids, size)
    count: dict[frozenset[int], int] = {}
    for r in schedule:
        seated = [u for t in r.tables for u in t] + ([r.bye] if r.bye is not None else [])
        assert sorted(seated) == ids
        for t in r.tables:
            for p in combinations(t, 2):
                count[frozenset(p)] = count.get(frozenset(p), 0) + 1
    assert len(count) == n * (n - 1) // 2
    if size == 2:
        assert set(count.values()) == {1} and len(schedule) == n - 1 + n % 2
    assert round_robin(ids, size) == schedule  # a fixed schedule


def test_every_round_robin_within_the_cap_fits_the_rounds_allowed() -> None:
    """Every entrant count up to the cap of its table size (issue #28): everyone meets
    everyone within :data:`~bot.core.tournament.model.MAX_ROUNDS` rounds, everyone seated
    each round."""
    for size in (2, 3, 4):
        cap = max_entrants(ROUND_ROBIN, size)
        for n in range(2, cap + 1):
            ids = list(range(1, n + 1))
            schedule = round_robin(ids, size)
            assert 1 <= len(schedule) <= MAX_ROUNDS, (size, n, len(schedule))
            met = {frozenset(p) for r in schedule for t in r.tables for p in combinations(t, 2)}
            assert len(met) == n * (n - 1) // 2, (size, n)
            for r in schedule:
                seated = [u for t in r.tables for u in t] + ([r.bye] if r.bye else [])
                assert sorted(seated) == ids

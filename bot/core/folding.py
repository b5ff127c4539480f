"""Fewer posts for the same news (issue 29): a run of notices of one lane shown as one post.

A four-seat table played quickly posted once per move in its thread, 95 posts a game; at
Discord's five messages per few seconds in a channel its score sheet came a minute after the
game ended. Now, when the dispatcher serves a lane and finds several such notices waiting in a
row, it hands the delivery the first with the whole run (:attr:`Notice.run
<bot.core.notices.Notice.run>`), which shows them as one post (every move told, one picture of
the table), and records them all with that post. The rule (:func:`folds`): a table post folds
into the next one when that one is a computer's move. Runs form where they matter: when the
moves come faster than the channel may take posts (computers at full speed, a paced channel).

Exactly once still holds. A run's post is marked with its first notice's key and its length
(:func:`run_key`): a run that grew meanwhile is another post. A run whose first notice is in
doubt (its process died while posting) is looked for under every length it may have had
(:func:`run_keys`); the post found says how many notices it covered, those are recorded with
it and the rest goes on. The notices of a run are recorded in one transaction.

A value module: plain functions of notices, read by the dispatcher and the delivery.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.notices import Body, Notice, Table

RUN_MAX = 12  # notices in one post at most (its text stays well within Discord's 2,000)


def folds(body: Body, nxt: Body) -> bool:
    """Whether a post of ``body`` may be said together with the next notice of its lane: a
    table post followed by a computer's move."""
    return isinstance(body, Table) and isinstance(nxt, Table) and nxt.by == "computer"


def run_at(notices: Sequence[Notice], start: int, limit: int = RUN_MAX) -> list[Notice]:
    """The run beginning at ``notices[start]`` (that notice alone when nothing folds)."""
    run = [notices[start]]
    while len(run) < limit and start + len(run) < len(notices):
        nxt = notices[start + len(run)]
        if not folds(run[-1].body, nxt.body):
            break
        run.append(nxt)
    return run


def run_key(key: str, length: int) -> str:
    """The key a run's post carries: its first notice's alone, else with the run's length."""
    return key if length <= 1 else f"{key}+{length}"


def run_keys(key: str, longest: int) -> list[str]:
    """Every key a post of a run beginning with ``key`` may carry (lengths 1 to ``longest``)."""
    return [run_key(key, n) for n in range(1, max(1, longest) + 1)]

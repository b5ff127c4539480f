"""Who may do what, and how often: every interaction kind of the bot, classified once.

Each slash command (every leaf of ``/calico``), each button and select kind (every custom-id
kind of :mod:`bot.adapter.ui.custom_ids`) and autocomplete is exactly one of:

- :class:`Free`: cheap, and limited by the game itself (playing a move, leaving, the rules);
- :class:`Counted`: costs work or posts for others to see, so each person has a cooldown
  (:class:`~bot.core.limits.Rule`: a burst at once, then one every so many seconds);
  :meth:`CalicoBot.admit <bot.adapter.client.CalicoBot.admit>` enforces it, the one place
  that does (:mod:`bot.adapter.cooldowns`);
- :class:`Privileged`: changes something for other people, so it needs a permission or a
  position (which one is written here); the command or the core refuses everyone else
  privately. Those that post for everyone to see (a tournament's steps) are counted too, by
  their ``rule``.

The table is :data:`POLICY`, keyed by the interaction's kind as
:func:`bot.adapter.telemetry.kind_of` names it (``slash:calico start``, ``button:rematch``,
``select:lr``, ``autocomplete``). ``tests/adapter/test_policy.py`` fails when a command or a
custom-id kind is missing from it (or the table names one that no longer exists), and
``tests/e2e/test_bot_abuse.py`` drives every privileged entry as someone without the right.

The cooldowns (burst here, the pace in :class:`~bot.settings.Settings`, seconds; 0 turns one
off):

==============  =====  ==========================  =============================================
rule            burst  setting (default)           what it protects
==============  =====  ==========================  =============================================
start           3      ``start_cooldown`` (20)     new games and rematches; a refused one is
                                                   given back (wrong channel, missing role...)
lobby           6      ``lobby_cooldown`` (2)      lobby buttons: each click edits the lobby post
picture         20     ``picture_cooldown`` (0.25) one picture drawn for the person
review          4      ``review_cooldown`` (10)    reviews and hints (worker processes)
replay          3      ``replay_cooldown`` (10)    replay GIFs, achievement charts, records, the
                                                   public leaderboard
lookup          10     ``lookup_cooldown`` (1)     stats, game lists, the challenge's standing
autocomplete    10     ``autocomplete_cooldown``   suggestions (up to 50 games read a keystroke);
                       (0.5)                       past it, an empty list
organise        3      ``organise_cooldown`` (10)  a tournament's organiser steps (create, close,
                                                   remove, pause, cancel): each posts in its
                                                   channel; a refused one is given back
==============  =====  ==========================  =============================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeAlias

from bot.adapter.ui import custom_ids as ids
from bot.core.limits import Cooldowns, Rule

if TYPE_CHECKING:
    from bot.settings import Settings

START: Final = "start"
LOBBY: Final = "lobby"
PICTURE: Final = "picture"
REVIEW: Final = "review"
REPLAY: Final = "replay"
LOOKUP: Final = "lookup"
AUTOCOMPLETE: Final = "autocomplete"
ORGANISE: Final = "organise"

# Each rule's burst, and the setting that gives its pace.
BURSTS: Final[dict[str, int]] = {START: 3, LOBBY: 6, PICTURE: 20, REVIEW: 4, REPLAY: 3,
                                 LOOKUP: 10, AUTOCOMPLETE: 10, ORGANISE: 3}
PACE_SETTINGS: Final[dict[str, str]] = {
    START: "start_cooldown", LOBBY: "lobby_cooldown", PICTURE: "picture_cooldown",
    REVIEW: "review_cooldown", REPLAY: "replay_cooldown", LOOKUP: "lookup_cooldown",
    AUTOCOMPLETE: "autocomplete_cooldown", ORGANISE: "organise_cooldown"}
# Rules whose allowance a refused interaction gets back: a start refused for the wrong
# channel, a missing role or missing permissions opened nothing; an organiser step refused
# (not theirs, not now) posted nothing.
REFUNDED: Final = frozenset({START, ORGANISE})


@dataclass(frozen=True, slots=True)
class Free:
    """No cooldown, no permission."""


@dataclass(frozen=True, slots=True)
class Counted:
    """A per-person cooldown, by rule name (one of :data:`BURSTS`)."""

    rule: str


@dataclass(frozen=True, slots=True)
class Privileged:
    """Needs ``needs`` (said in words; the command or the core checks it); counted by
    ``rule`` too when it posts for others to see."""

    needs: str
    rule: str | None = None


Policy: TypeAlias = Free | Counted | Privileged

MANAGE_SERVER: Final = "Manage Server"
GAME_HOST: Final = "the game's host, or Manage Server in the game's server"
LOBBY_HOST: Final = "the lobby's host"
TOURNAMENT_MAKER: Final = "Manage Server, or the tournament role chosen in /calico admin"
# Other holders of the tournament role may create their own tournaments, not run others'.
ORGANISER: Final = "the tournament's organiser, or Manage Server"


def component(cls: type[ids.CustomId]) -> str:
    """The kind of a click on a custom-id kind, as :func:`telemetry.kind_of` names it."""
    kind = ids.kind_of(cls)
    return f"{'select' if isinstance(kind.widget, ids.Select) else 'button'}:{kind.tag}"


def slash(name: str) -> str:
    return f"slash:calico {name}"


FREE: Final = Free()

POLICY: Final[dict[str, Policy]] = {
    # ---------------------------------------------------------------- slash commands
    slash("start"): Counted(START),
    slash("solo"): Counted(START),
    slash("board"): Counted(PICTURE),
    slash("hand"): Counted(PICTURE),
    slash("status"): Counted(PICTURE),
    slash("review"): Counted(REVIEW),
    slash("replay"): Counted(REPLAY),
    slash("achievements"): Counted(REPLAY),
    slash("record"): Counted(REPLAY),
    slash("leaderboard"): Counted(REPLAY),  # posted in the channel for everyone
    slash("stats"): Counted(LOOKUP),
    slash("games"): Counted(LOOKUP),
    slash("challenge"): Counted(LOOKUP),  # deals the week's game once; then reads
    slash("rules"): FREE,  # text, or a picture drawn once per language
    slash("settings"): FREE,  # the person's own two switches
    slash("leave"): FREE,  # bounded by the games they are in
    slash("admin"): Privileged(MANAGE_SERVER),
    slash("abandon"): Privileged(GAME_HOST),
    slash("tournament create"): Privileged(TOURNAMENT_MAKER, ORGANISE),
    slash("tournament close"): Privileged(ORGANISER, ORGANISE),
    slash("tournament remove"): Privileged(ORGANISER, ORGANISE),
    slash("tournament pause"): Privileged(ORGANISER, ORGANISE),
    slash("tournament cancel"): Privileged(ORGANISER, ORGANISE),
    slash("tournament list"): Counted(LOOKUP),
    slash("tournament standings"): Counted(REPLAY),  # the standings picture
    slash("tournament leave"): FREE,  # once per tournament and person
    # ---------------------------------------------------------------- buttons and selects
    component(ids.LobbyId): Counted(LOBBY),  # join, leave, computer, start, cancel, pet
    component(ids.LobbyRemoveId): Privileged(LOBBY_HOST),
    component(ids.DraftId): Counted(PICTURE),  # an arrangement chosen: the draft picture
    component(ids.DraftConfirmId): FREE,  # a move (once per game and person)
    component(ids.DraftBackId): Counted(PICTURE),
    component(ids.CellId): Counted(PICTURE),  # a cell chosen: the preview picture
    component(ids.TakeId): FREE,  # a move: bounded by the turn
    component(ids.UndoId): Counted(PICTURE),  # the turn picture again
    component(ids.HandId): Counted(PICTURE),
    component(ids.ReplayId): Counted(REPLAY),
    component(ids.RematchId): Counted(START),  # opens a lobby like /calico start
    component(ids.PickId): FREE,  # the winner's own row, once per game
    component(ids.HintId): Counted(REVIEW),
    component(ids.ReviewId): Counted(REVIEW),
    component(ids.TournamentJoinId): Counted(LOBBY),  # each click edits the sign-up post
    component(ids.TournamentLeaveId): Counted(LOBBY),
    # ---------------------------------------------------------------- the rest
    "autocomplete": Counted(AUTOCOMPLETE),
}


def policy_of(kind: str) -> Policy:
    """The entry for an interaction kind (an unknown kind, e.g. a foreign custom id: free)."""
    return POLICY.get(kind, FREE)


def cooldowns_from(settings: Settings) -> Cooldowns:
    """The cooldowns of :data:`POLICY`, at the paces the settings give."""
    return Cooldowns({rule: Rule(burst, float(getattr(settings, PACE_SETTINGS[rule])))
                      for rule, burst in BURSTS.items()})


__all__ = ["AUTOCOMPLETE", "BURSTS", "LOBBY", "LOOKUP", "ORGANISE", "PICTURE", "POLICY", "REFUNDED",
           "REPLAY", "REVIEW", "START", "Counted", "Free", "Policy", "Privileged", "component",
           "cooldowns_from", "policy_of", "slash"]

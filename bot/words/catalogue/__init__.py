"""The message catalogue: every word the bot shows, in English, French and Polish.

``en.json``, ``fr.json`` and ``pl.json`` hold the core entries; each feature may add its own file
per language in ``en/``, ``fr/`` and ``pl/`` (``en/achievements.json`` ...), merged at load (a key
defined twice is an error). Entries are flat ``"section.name": "text"`` pairs with
``{placeholders}`` for :meth:`str.format`. An entry may instead be a plural table
(``{"one": ..., "few": ..., "many": ..., "other": ...}``) chosen by the ``count`` argument with
each language's own plural rule. A missing key falls back to English, then to the key itself, so
a gap never crashes a command (a test keeps the three files in step).

The locale is whatever Discord gives (``interaction.locale``: ``en-US``, ``fr``, ``pl`` ...) or
the one stored with a user; anything that is not French or Polish reads English.
"""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path
from typing import Any, Final

LANGS: Final = ("en", "fr", "pl")
DEFAULT: Final = "en"
_DIR = Path(__file__).resolve().parent

Entry = str | dict[str, str]


def lang_of(locale: object) -> str:
    """``"en"``, ``"fr"`` or ``"pl"`` for a Discord locale (a ``discord.Locale`` or a string)."""
    if locale is None:
        return DEFAULT
    text = str(getattr(locale, "value", locale)).lower()
    head = text.replace("_", "-").split("-", 1)[0]
    return head if head in LANGS else DEFAULT


def _read(path: Path) -> dict[str, Entry]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} must hold an object")
    return {k: v for k, v in data.items() if not k.startswith("_")}


@cache
def load(lang: str) -> dict[str, Entry]:
    """The catalogue of ``lang``: ``<lang>.json`` plus every ``<lang>/*.json`` (cached: the
    files are read once)."""
    merged = _read(_DIR / f"{lang}.json")
    folder = _DIR / lang
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        part = _read(path)
        twice = sorted(set(part) & set(merged))
        if twice:
            raise ValueError(f"{lang}/{path.name} redefines {', '.join(twice[:5])}")
        merged.update(part)
    return merged


def plural_form(lang: str, n: float) -> str:
    """The CLDR plural category of ``n`` in ``lang`` (the subset these languages use). A
    fraction (half points: 1.5) is "other" in English and Polish, and "one" in French below
    2 ("1,5 point"); Polish tables, which have no "other", fall back to "many"."""
    n = abs(n)
    whole = n == int(n)
    if lang == "pl":
        if not whole:
            return "other"
        i = int(n)
        if i == 1:
            return "one"
        if 2 <= i % 10 <= 4 and not 12 <= i % 100 <= 14:
            return "few"
        return "many"
    if lang == "fr":
        return "one" if n < 2 else "other"
    return "one" if n == 1 and whole else "other"


def _pick(entry: Entry, lang: str, kwargs: dict[str, Any]) -> str:
    if isinstance(entry, str):
        return entry
    count = kwargs.get("count", 0)
    form = plural_form(lang, count if isinstance(count, int | float) else 0)
    return entry.get(form) or entry.get("other") or entry.get("many") or next(iter(entry.values()))


def t(locale: object, key: str, /, **kwargs: Any) -> str:
    """The text of ``key`` in the language of ``locale``, formatted with ``kwargs``."""
    lang = lang_of(locale)
    entry = load(lang).get(key)
    if entry is None:
        entry = load(DEFAULT).get(key)
        lang = DEFAULT
    if entry is None:
        return key
    text = _pick(entry, lang, kwargs)
    try:
        return text.format(**kwargs)
    except (KeyError, IndexError, ValueError):
        # A translation with a wrong placeholder shows unformatted instead of failing the command.
        return text


def has(key: str) -> bool:
    return key in load(DEFAULT)


def placeholders(entry: Entry) -> frozenset[str]:
    """The placeholder names used by an entry (all plural forms together)."""
    texts = [entry] if isinstance(entry, str) else list(entry.values())
    names: set[str] = set()
    for text in texts:
        for _, name, _, _ in string.Formatter().parse(text):
            if name:
                names.add(name.split(".", 1)[0].split("[", 1)[0])
    return frozenset(names)


class Text:
    """A translator bound to one locale: ``tr = Text(locale); tr("lobby.title", game=3)``."""

    __slots__ = ("lang",)

    def __init__(self, locale: object) -> None:
        self.lang = lang_of(locale)

    def __call__(self, key: str, /, **kwargs: Any) -> str:
        return t(self.lang, key, **kwargs)

    def __repr__(self) -> str:
        return f"Text({self.lang!r})"

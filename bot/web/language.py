"""The visitor's language from the browser's ``Accept-Language`` (the bot's en/fr/pl; anything
else reads English), as ``q`` weights order it."""

from __future__ import annotations

from bot.words.catalogue import DEFAULT, LANGS


def pick(header: str | None) -> str:
    best, best_q = DEFAULT, -1.0
    for order, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().lower().split("-", 1)[0]
        q = 1.0
        for p in params.split(";"):
            name, _, value = p.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if lang in LANGS and q > 0 and q - order * 1e-6 > best_q:
            best, best_q = lang, q - order * 1e-6
    return best

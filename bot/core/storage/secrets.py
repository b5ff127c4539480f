"""What of a database location may be shown: a PostgreSQL URL without its secrets.

A password can sit in two places of a URL: the userinfo (``postgresql://user:PASSWORD@host``)
and the query (``?password=PASSWORD``; also ``sslpassword`` and ``passfile``, which libpq and
asyncpg read there too). :func:`redact` hides both; every log line, message and ``repr`` that
shows ``CALICO_DB`` goes through it, and :func:`url_secrets` hands the raw values to the log
redaction (:class:`bot.ops.logs.RedactFilter`) for whatever else might quote them. Neutral
ground: no backend, no driver, so either backend and the settings can use it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

HIDDEN = "***"
# Query parameters whose values are secrets (compared lower-case).
SECRET_PARAMETERS = frozenset({"password", "sslpassword", "passfile"})
_SCHEMES = ("postgresql://", "postgres://")
# One query parameter: (the separator before it, its key, its value).
_PARAMETER = re.compile(r"([?&])([^=&?]*)=([^&]*)")


def is_url(location: str) -> bool:
    return location.startswith(_SCHEMES)


def _split(url: str) -> tuple[str, str, str]:
    """(scheme with ``://``, userinfo, the rest) of a database URL. The userinfo ends at the
    last ``@`` before the query (or, when a ``?`` hides inside the password, at the last ``@``
    at all): a password with ``/`` or ``?`` in it is still found whole."""
    scheme, sep, rest = url.partition("://")
    query_at = rest.find("?")
    at = rest.rfind("@", 0, query_at if query_at >= 0 else len(rest))
    if at < 0:
        at = rest.rfind("@")
    userinfo, tail = (rest[:at], rest[at + 1:]) if at >= 0 else ("", rest)
    return scheme + sep, userinfo, tail


def _secret_parameter(match: re.Match[str]) -> bool:
    return unquote(match[2]).strip().lower() in SECRET_PARAMETERS


def redact(location: str) -> str:
    """``location`` fit to show: a URL's passwords (userinfo and query) replaced by ``***``; a
    file path as it is."""
    if not is_url(location):
        return location
    scheme, userinfo, tail = _split(location)
    user, colon, _password = userinfo.partition(":")
    shown = f"{user}{colon}{HIDDEN if colon else ''}@" if userinfo else ""
    tail = _PARAMETER.sub(
        lambda m: f"{m[1]}{m[2]}={HIDDEN}" if _secret_parameter(m) else m[0], tail)
    return scheme + shown + tail


def url_secrets(location: str) -> list[str]:
    """Every secret value in a URL, as written and decoded (for the log redaction)."""
    if not is_url(location):
        return []
    _scheme, userinfo, tail = _split(location)
    found: list[str] = []
    _user, colon, password = userinfo.partition(":")
    if colon and password:
        found.append(password)
    found.extend(m[3] for m in _PARAMETER.finditer(tail) if m[3] and _secret_parameter(m))
    return sorted({v for raw in found for v in (raw, unquote(raw))})




def scrub(text: str, *locations: str) -> str:
    """``text`` (an error, a line to print) with every secret of ``locations`` hidden."""
    for location in locations:
        text = text.replace(location, redact(location))
        for secret in sorted(url_secrets(location), key=len, reverse=True):
            if len(secret) >= 3:
                text = text.replace(secret, HIDDEN)
    return text


__all__ = ["HIDDEN", "is_url", "redact", "scrub", "url_secrets"]

"""Discord's documented size and shape limits, checked the way Discord's API checks them.

Each ``check_*`` function returns a list of :class:`FieldError` (empty = valid).  The server turns
them into a ``400 Invalid Form Body`` (code 50035) answer whose ``errors`` object nests the
failing path like Discord does, so discord.py raises :class:`discord.HTTPException` with a
readable message, and records a violation the test can assert on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .state import FLAG_COMPONENTS_V2, JSON

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_FILES = 10
MAX_ACTION_ROWS = 5
MAX_ROW_BUTTONS = 5
MAX_SELECT_OPTIONS = 25
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_V2_COMPONENTS = 40
MAX_MODAL_TITLE = 45
MAX_MODAL_COMPONENTS = 5
MAX_AUTOCOMPLETE_CHOICES = 25
MAX_ALLOWED_MENTIONS = 100  # users, and roles, a message may name in ``allowed_mentions``

SELECT_TYPES = (3, 5, 6, 7, 8)
LINK_STYLE = 5
PREMIUM_STYLE = 6


@dataclass(frozen=True)
class FieldError:
    path: tuple[str | int, ...]
    code: str
    message: str

    def __str__(self) -> str:
        return f"{'.'.join(str(p) for p in self.path)}: {self.message}"


def form_body_error(errors: Sequence[FieldError]) -> JSON:
    """Discord's 50035 error body with the nested ``errors`` object."""
    tree: JSON = {}
    for err in errors:
        node = tree
        for part in err.path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": err.code, "message": err.message})
    return {"code": 50035, "message": "Invalid Form Body", "errors": tree}


def _max_len(
    out: list[FieldError], path: tuple[str | int, ...], value: Any, limit: int, *, min_len: int = 0
) -> None:
    if value is None:
        return
    text = str(value)
    if len(text) > limit:
        out.append(FieldError(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length."))
    elif len(text) < min_len:
        out.append(
            FieldError(
                path,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between {min_len} and {limit} in length.",
            )
        )


def check_embeds(embeds: Any, prefix: tuple[str | int, ...] = ("embeds",)) -> list[FieldError]:
    out: list[FieldError] = []
    if not isinstance(embeds, list):
        return out
    if len(embeds) > MAX_EMBEDS:
        out.append(
            FieldError(prefix, "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_EMBEDS} or fewer in length.")
        )
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            continue
        p = (*prefix, i)
        _max_len(out, (*p, "title"), embed.get("title"), 256)
        _max_len(out, (*p, "description"), embed.get("description"), 4096)
        total += len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
        footer = embed.get("footer") or {}
        _max_len(out, (*p, "footer", "text"), footer.get("text"), 2048)
        total += len(str(footer.get("text") or ""))
        author = embed.get("author") or {}
        _max_len(out, (*p, "author", "name"), author.get("name"), 256)
        total += len(str(author.get("name") or ""))
        fields = embed.get("fields") or []
        if len(fields) > 25:
            out.append(
                FieldError((*p, "fields"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
            )
        for j, fld in enumerate(fields):
            _max_len(out, (*p, "fields", j, "name"), fld.get("name"), 256, min_len=1)
            _max_len(out, (*p, "fields", j, "value"), fld.get("value"), 1024, min_len=1)
            total += len(str(fld.get("name") or "")) + len(str(fld.get("value") or ""))
    if total > MAX_EMBED_TOTAL:
        out.append(
            FieldError(prefix, "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
        )
    return out


def _check_button(out: list[FieldError], p: tuple[str | int, ...], comp: JSON) -> None:
    style = comp.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        out.append(
            FieldError(
                (*p, "style"), "BASE_TYPE_CHOICES", f"Value must be one of (1..6), got {style!r}."
            )
        )
    if style == LINK_STYLE:
        if not comp.get("url"):
            out.append(FieldError((*p, "url"), "BASE_TYPE_REQUIRED", "This field is required"))
        if comp.get("custom_id") is not None:
            out.append(
                FieldError(
                    (*p, "custom_id"),
                    "COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                    "Link buttons cannot have a custom_id",
                )
            )
        _max_len(out, (*p, "url"), comp.get("url"), 512)
    elif style != PREMIUM_STYLE and not comp.get("custom_id"):
        out.append(FieldError((*p, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required"))
    _max_len(out, (*p, "custom_id"), comp.get("custom_id"), MAX_CUSTOM_ID, min_len=1)
    _max_len(out, (*p, "label"), comp.get("label"), MAX_BUTTON_LABEL)
    if style != PREMIUM_STYLE and not comp.get("label") and not comp.get("emoji"):
        out.append(
            FieldError(
                p, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or emoji is required"
            )
        )


def _check_select(out: list[FieldError], p: tuple[str | int, ...], comp: JSON) -> None:
    if not comp.get("custom_id"):
        out.append(FieldError((*p, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required"))
    _max_len(out, (*p, "custom_id"), comp.get("custom_id"), MAX_CUSTOM_ID, min_len=1)
    _max_len(out, (*p, "placeholder"), comp.get("placeholder"), 150)
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if not 0 <= int(min_values) <= 25:
        out.append(
            FieldError((*p, "min_values"), "NUMBER_TYPE_MAX", "min_values must be between 0 and 25")
        )
    if not 1 <= int(max_values) <= 25:
        out.append(
            FieldError((*p, "max_values"), "NUMBER_TYPE_MAX", "max_values must be between 1 and 25")
        )
    if comp.get("type") == 3:
        options = comp.get("options") or []
        if not 1 <= len(options) <= MAX_SELECT_OPTIONS:
            out.append(
                FieldError(
                    (*p, "options"),
                    "BASE_TYPE_BAD_LENGTH",
                    f"Must be between 1 and {MAX_SELECT_OPTIONS} in length.",
                )
            )
        if int(max_values) > len(options):
            out.append(
                FieldError(
                    (*p, "max_values"),
                    "SELECT_COMPONENT_MAX_VALUES_TOO_HIGH",
                    "max_values exceeds the option count",
                )
            )
        values: set[str] = set()
        for j, opt in enumerate(options):
            _max_len(out, (*p, "options", j, "label"), opt.get("label"), 100, min_len=1)
            _max_len(out, (*p, "options", j, "value"), opt.get("value"), 100, min_len=1)
            _max_len(out, (*p, "options", j, "description"), opt.get("description"), 100)
            value = str(opt.get("value"))
            if value in values:
                out.append(
                    FieldError(
                        (*p, "options", j, "value"),
                        "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                        "Option values must be unique",
                    )
                )
            values.add(value)


def _walk(components: Iterable[Any]) -> Iterable[JSON]:
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        yield from _walk(comp.get("components") or [])
        yield from _walk(comp.get("items") or [])
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), dict):
                yield from _walk([comp[key]])


def check_components(components: Any, flags: int) -> list[FieldError]:
    out: list[FieldError] = []
    if not isinstance(components, list):
        return out
    every = list(_walk(components))
    if flags & FLAG_COMPONENTS_V2:
        if len(every) > MAX_V2_COMPONENTS:
            out.append(
                FieldError(
                    ("components",),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {MAX_V2_COMPONENTS} or fewer in total.",
                )
            )
    else:
        if len(components) > MAX_ACTION_ROWS:
            out.append(
                FieldError(
                    ("components",),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {MAX_ACTION_ROWS} or fewer in length.",
                )
            )
        for i, row in enumerate(components):
            if not isinstance(row, dict) or row.get("type") != 1:
                out.append(
                    FieldError(
                        ("components", i, "type"),
                        "COMPONENT_LAYOUT_INVALID",
                        "Top-level components must be action rows",
                    )
                )
                continue
            children = row.get("components") or []
            if not children:
                out.append(
                    FieldError(
                        ("components", i, "components"),
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 5 in length.",
                    )
                )
            has_select = any(c.get("type") in SELECT_TYPES for c in children)
            if has_select and len(children) > 1:
                out.append(
                    FieldError(
                        ("components", i, "components"),
                        "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                        "A select must be alone in its row",
                    )
                )
            elif len(children) > MAX_ROW_BUTTONS:
                out.append(
                    FieldError(
                        ("components", i, "components"),
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {MAX_ROW_BUTTONS} or fewer in length.",
                    )
                )
    # per-component checks, with a path when the component is at a classic position
    for i, row in enumerate(components):
        if not isinstance(row, dict):
            continue
        for j, comp in enumerate(row.get("components") or []):
            if not isinstance(comp, dict):
                continue
            p: tuple[str | int, ...] = ("components", i, "components", j)
            if comp.get("type") == 2:
                _check_button(out, p, comp)
            elif comp.get("type") in SELECT_TYPES:
                _check_select(out, p, comp)
    if flags & FLAG_COMPONENTS_V2:
        for k, comp in enumerate(every):
            if comp.get("type") == 2:
                _check_button(out, ("components", "*", k), comp)
            elif comp.get("type") in SELECT_TYPES:
                _check_select(out, ("components", "*", k), comp)
    seen: set[str] = set()
    for comp in every:
        cid = comp.get("custom_id")
        if cid is None or comp.get("type") in (1, 4):
            continue
        if cid in seen:
            out.append(
                FieldError(
                    ("components",),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    f"Component custom id {cid!r} is duplicated",
                )
            )
        seen.add(cid)
    # de-duplicate (V2 walk may revisit classic positions)
    unique: list[FieldError] = []
    for err in out:
        if err not in unique:
            unique.append(err)
    return unique


def check_allowed_mentions(mentions: Any) -> list[FieldError]:
    """Discord's allowed mentions object: at most 100 user ids and 100 role ids (a longer list
    is refused as an invalid form body, the whole message with it), and ``users`` or ``roles``
    not both listed and parsed."""
    out: list[FieldError] = []
    if not isinstance(mentions, dict):
        return out
    parse = mentions.get("parse") or []
    for kind in ("users", "roles"):
        ids = mentions.get(kind)
        if not isinstance(ids, list):
            continue
        if len(ids) > MAX_ALLOWED_MENTIONS:
            out.append(
                FieldError(
                    ("allowed_mentions", kind),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {MAX_ALLOWED_MENTIONS} or fewer in length.",
                )
            )
        if ids and kind in parse:
            out.append(
                FieldError(
                    ("allowed_mentions", "parse"),
                    "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                    f'parse:["{kind}"] and {kind}: [ids] are mutually exclusive.',
                )
            )
    return out


def check_message(body: JSON, *, creating: bool, file_count: int) -> list[FieldError]:
    """Shape rules for a message create/edit body (interaction responses included)."""
    out: list[FieldError] = []
    out.extend(check_allowed_mentions(body.get("allowed_mentions")))
    flags = int(body.get("flags") or 0)
    content = body.get("content")
    if content is not None and len(str(content)) > MAX_CONTENT:
        out.append(
            FieldError(
                ("content",), "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_CONTENT} or fewer in length."
            )
        )
    out.extend(check_embeds(body.get("embeds")))
    out.extend(check_components(body.get("components"), flags))
    if flags & FLAG_COMPONENTS_V2 and (content or body.get("embeds")):
        out.append(
            FieldError(
                ("content",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "Content and embeds are not allowed with components v2",
            )
        )
    attachments = body.get("attachments")
    total_files = file_count if attachments is None else max(file_count, len(attachments or []))
    if total_files > MAX_FILES:
        out.append(
            FieldError(
                ("attachments",), "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_FILES} or fewer in length."
            )
        )
    return out


def is_empty_message(body: JSON, file_count: int) -> bool:
    return not (
        body.get("content")
        or body.get("embeds")
        or body.get("components")
        or body.get("sticker_ids")
        or body.get("poll")
        or file_count
    )


def check_modal(data: JSON) -> list[FieldError]:
    out: list[FieldError] = []
    _max_len(out, ("data", "title"), data.get("title"), MAX_MODAL_TITLE, min_len=1)
    if not data.get("title"):
        out.append(FieldError(("data", "title"), "BASE_TYPE_REQUIRED", "This field is required"))
    _max_len(out, ("data", "custom_id"), data.get("custom_id"), MAX_CUSTOM_ID, min_len=1)
    components = data.get("components") or []
    if not 1 <= len(components) <= MAX_MODAL_COMPONENTS:
        out.append(
            FieldError(
                ("data", "components"),
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {MAX_MODAL_COMPONENTS} in length.",
            )
        )
    for k, comp in enumerate(_walk(components)):
        p: tuple[str | int, ...] = ("data", "components", "*", k)
        if comp.get("type") == 4:
            _max_len(out, (*p, "custom_id"), comp.get("custom_id"), MAX_CUSTOM_ID, min_len=1)
            _max_len(out, (*p, "label"), comp.get("label"), 45)
            _max_len(out, (*p, "placeholder"), comp.get("placeholder"), 100)
            _max_len(out, (*p, "value"), comp.get("value"), 4000)
        elif comp.get("type") == 18:
            _max_len(out, (*p, "label"), comp.get("label"), 45, min_len=1)
            _max_len(out, (*p, "description"), comp.get("description"), 100)
        elif comp.get("type") in SELECT_TYPES:
            _check_select(out, p, comp)
    return out


def check_choices(data: JSON) -> list[FieldError]:
    out: list[FieldError] = []
    choices = data.get("choices") or []
    if len(choices) > MAX_AUTOCOMPLETE_CHOICES:
        out.append(
            FieldError(
                ("data", "choices"),
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_AUTOCOMPLETE_CHOICES} or fewer in length.",
            )
        )
    for i, choice in enumerate(choices):
        _max_len(out, ("data", "choices", i, "name"), choice.get("name"), 100, min_len=1)
        if isinstance(choice.get("value"), str):
            _max_len(out, ("data", "choices", i, "value"), choice.get("value"), 100)
    return out


USER_MENTION = re.compile(r"<@!?(\d+)>")


def pinged_users(content: str, allowed: Any) -> list[int]:
    """The users a message pings, as Discord decides: those its content mentions, filtered by
    its allowed mentions (absent: every mention in the content pings)."""
    named = [int(m) for m in USER_MENTION.findall(content or "")]
    if not isinstance(allowed, dict):
        return list(dict.fromkeys(named))
    if "users" in (allowed.get("parse") or []):
        return list(dict.fromkeys(named))
    listed = {int(u) for u in allowed.get("users") or []}
    return list(dict.fromkeys(u for u in named if u in listed))

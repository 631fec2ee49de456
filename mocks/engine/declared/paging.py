"""Paging wrappers declared in a world fixture: offset pages and cursor pages.

Many APIs answer a list as a page object rather than the bare items. An
endpoint's rule declares its page (``endpoints.<function>.paging``)::

    "GET_me_tracks": {"paging": {"href": "https://api.example.com/v1/me/tracks", "limit": 20, "max_limit": 50}},
    "GET_me_following": {"paging": {"style": "cursor", "cursor": "after", "under": "artists",
                                    "href": "https://api.example.com/v1/me/following"}}

An ``offset`` page (the default) reads the call's ``offset`` and ``limit``
(``limit`` defaults to ``limit``, at most ``max_limit``) and answers
``{href, items, limit, offset, total, next, previous}``, where ``next`` and
``previous`` are the hrefs of the neighbouring pages (null at the ends). A
``cursor`` page starts after the item whose ``key`` (default ``id``) is the
call's ``cursor`` argument (an unknown cursor is not found) and answers
``{href, items, limit, total, next, cursors: {after}}``. ``href`` is a
template over the call's arguments (``.../artists/{id}/albums``); ``under``
puts the page under that field (``{"artists": page}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import fill
from gqlbench.mocks.errors import BadArguments, NotFound

__all__ = ["STYLES", "check_paging", "cursor_page", "offset_page", "page"]

STYLES = ("offset", "cursor")
_KEYS = {"style", "href", "limit", "max_limit", "cursor", "key", "under"}


def check_paging(paging: Any, where: str) -> None:
    """Raise a one-line error naming ``where`` unless ``paging`` is a page declaration (module docstring)."""
    if not isinstance(paging, dict):
        raise GqlbenchError(f'{where}: paging must be an object like {{"href": "https://api.example.com/items", "limit": 20}}')
    unknown = sorted(set(paging) - _KEYS)
    if unknown:
        raise GqlbenchError(f"{where}: paging.{unknown[0]}: unknown key; use {', '.join(sorted(_KEYS))}")
    if paging.get("style", "offset") not in STYLES:
        raise GqlbenchError(f"{where}: paging.style {paging['style']!r} is not one of {', '.join(STYLES)}")
    for name in ("limit", "max_limit"):
        if name in paging and (not isinstance(paging[name], int) or isinstance(paging[name], bool) or paging[name] < 1):
            raise GqlbenchError(f"{where}: paging.{name} must be a positive integer")


def offset_page(items: list[Any], href: str, args: Mapping[str, Any], limit: int = 20, max_limit: int | None = None) -> dict[str, Any]:
    """One offset page of ``items`` (see the module docstring); a bad offset or limit is :class:`BadArguments`."""
    most = max(50, limit) if max_limit is None else max_limit
    size = args.get("limit") or limit
    offset = args.get("offset") or 0
    if not 0 <= offset:
        raise BadArguments(f"offset must be >= 0, got {offset}")
    if not 1 <= size <= most:
        raise BadArguments(f"limit must be between 1 and {most}, got {size}")
    more = offset + size < len(items)
    return {
        "href": f"{href}?offset={offset}&limit={size}",
        "items": items[offset : offset + size],
        "limit": size,
        "offset": offset,
        "total": len(items),
        "next": f"{href}?offset={offset + size}&limit={size}" if more else None,
        "previous": f"{href}?offset={max(offset - size, 0)}&limit={size}" if offset else None,
    }


def cursor_page(
    items: list[Any],
    href: str,
    args: Mapping[str, Any],
    cursor: str = "after",
    key: str = "id",
    limit: int = 20,
    max_limit: int | None = None,
) -> dict[str, Any]:
    """One cursor page: the items after the one whose ``key`` is ``args[cursor]``."""
    after = args.get(cursor)
    if after:
        keys = [item.get(key) if isinstance(item, Mapping) else item for item in items]
        if after not in keys:
            raise NotFound(f"{cursor}={after!r} is not in this list; use the cursor of a previous page")
        items = items[keys.index(after) + 1 :]
    page = offset_page(items, href, {"limit": args.get("limit")}, limit, max_limit)
    del page["offset"], page["previous"]
    last = page["items"][-1] if page["items"] else None
    page["cursors"] = {cursor: (last.get(key) if isinstance(last, Mapping) else last) if page["next"] else None}
    return page


def page(items: list[Any], paging: Mapping[str, Any], args: Mapping[str, Any]) -> Any:
    """``items`` as the page ``paging`` declares, for a call with ``args``."""
    href = fill(str(paging.get("href", "")), lambda name: "" if args.get(name) is None else args[name])
    sizes = {"limit": paging.get("limit", 20), "max_limit": paging.get("max_limit")}
    if paging.get("style") == "cursor":
        out = cursor_page(items, href, args, paging.get("cursor", "after"), paging.get("key", "id"), **sizes)
    else:
        out = offset_page(items, href, args, **sizes)
    return {paging["under"]: out} if paging.get("under") else out

"""熔钥秘境 decks as the world writes them, read into plain deck dicts that
:mod:`catalog.decks.lists` turns into decklists:

- keyteki's deck JSON (``keyforge-standalone-decks.json``: one deck object or a list of them):
  ``name``, ``uuid``, ``expansion``, ``houses`` (three), ``cards``: ``{"id": <card slug>,
  "count", "maverick"?: <house>, "enhancements"?: [icons], "anomaly"?, "legacy"?}``;
- a Master Vault-shaped deck (``{"data": {"name", "id", "expansion", "_links": {"houses": […],
  "cards": [card ids, one per copy]}, "bonus_icons"?: [{"card_id", "bonus_icons"}]},
  "_linked": {"cards": [{"id", "card_title", "house", "is_maverick", "is_legacy", "is_anomaly"}]}}``).

A plain deck dict: ``{"metadata": {"name", "game", "houses", "set", "id"}, "cards": [{"card",
"count", "by", "house", "maverick", "legacy", "anomaly", "enhancements"}]}`` where ``by`` says
what ``card`` is: ``slug`` (keyteki's id, derived from the English name) or ``name``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# The bonus icons a KeyForge card (or an enhancement) adds: æmber, capture, damage, draw,
# discard (later sets add more; an unknown icon word is kept as written).
BONUS_ICONS = {
    "amber": ("琥珀", "Æmber"),
    "capture": ("捕获", "Capture"),
    "damage": ("伤害", "Damage"),
    "draw": ("抽牌", "Draw"),
    "discard": ("弃牌", "Discard"),
}
# The markers a pasted line may carry (DESIGN §4 extended): [maverick] [legacy] [anomaly]
# [enhanced: draw, capture]; Chinese 变节 / 传承 / 异常 / 强化.
MARKERS = {
    "maverick": "maverick",
    "变节": "maverick",
    "變節": "maverick",
    "legacy": "legacy",
    "传承": "legacy",
    "傳承": "legacy",
    "anomaly": "anomaly",
    "异常": "anomaly",
    "異常": "anomaly",
    "enhanced": "enhanced",
    "enhancements": "enhanced",
    "强化": "enhanced",
    "強化": "enhanced",
}
ICON_WORDS = {**{k: k for k in BONUS_ICONS}, **{zh: k for k, (zh, _en) in BONUS_ICONS.items()}, "æmber": "amber"}


def slugify(name: str) -> str:
    """keyteki's card id from an English name: ``It’s Coming...`` → ``it-s-coming``."""
    return re.sub(r"[^\w]+", "-", name.lower()).strip("-").replace("_", "-")


def icon_word(word: str) -> str:
    """An enhancement icon in our words: ``draw``, ``抽牌`` → ``draw``; unknown words as written."""
    key = word.strip().lower()
    return ICON_WORDS.get(key, key)


def looks_like_keyteki(data: Any) -> bool:
    return isinstance(data, Mapping) and isinstance(data.get("cards"), list) and isinstance(data.get("houses"), list)


def looks_like_master_vault(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("data"), Mapping)
        and isinstance(data.get("_linked"), Mapping)
        and isinstance((data["data"].get("_links") or {}).get("cards"), list)
    )


def read_deck_json(data: Any) -> list[dict[str, Any]] | None:
    """Decks in keyteki's or Master Vault's shape (one or a list); ``None``: not these shapes."""
    if isinstance(data, list) and data and all(looks_like_keyteki(d) or looks_like_master_vault(d) for d in data):
        return [_deck(d) for d in data]
    if looks_like_keyteki(data) or looks_like_master_vault(data):
        return [_deck(data)]
    return None


def _deck(data: Mapping[str, Any]) -> dict[str, Any]:
    return _master_vault(data) if looks_like_master_vault(data) else _keyteki(data)


def _keyteki(data: Mapping[str, Any]) -> dict[str, Any]:
    cards = []
    for entry in data["cards"]:
        if not isinstance(entry, Mapping):
            cards.append({"card": "", "count": 0, "by": "slug"})
            continue
        cards.append(
            {
                "card": str(entry.get("id") or ""),
                "count": entry.get("count", 1),
                "by": "slug",
                "house": str(entry.get("maverick") or entry.get("house") or ""),
                "maverick": bool(entry.get("maverick")),
                "legacy": bool(entry.get("legacy")),
                "anomaly": bool(entry.get("anomaly")),
                "enhancements": [icon_word(str(i)) for i in entry.get("enhancements") or ()],
            }
        )
    return {
        "metadata": {
            "name": str(data.get("name") or ""),
            "game": "keyforge",
            "houses": ",".join(str(h) for h in data["houses"]),
            "set": str(data.get("expansion") or ""),
            "id": str(data.get("uuid") or ""),
        },
        "cards": cards,
    }


def _master_vault(data: Mapping[str, Any]) -> dict[str, Any]:
    deck = data["data"]
    links = deck.get("_links") or {}
    linked = {str(c.get("id")): c for c in data["_linked"].get("cards") or () if isinstance(c, Mapping)}
    icons: dict[str, list[list[str]]] = {}
    for bonus in deck.get("bonus_icons") or ():
        if isinstance(bonus, Mapping):
            words = [icon_word(str(i)) for i in bonus.get("bonus_icons") or ()]
            icons.setdefault(str(bonus.get("card_id")), []).append(words)
    counts: dict[str, int] = {}
    for card_id in links.get("cards") or ():
        counts[str(card_id)] = counts.get(str(card_id), 0) + 1
    cards = []
    for card_id, count in counts.items():
        card = linked.get(card_id) or {}
        enhanced = icons.get(card_id, [])
        for copy_icons in enhanced[:count]:
            cards.append(_mv_line(card, card_id, 1, copy_icons))
        if count > len(enhanced):
            cards.append(_mv_line(card, card_id, count - len(enhanced), []))
    return {
        "metadata": {
            "name": str(deck.get("name") or ""),
            "game": "keyforge",
            "houses": ",".join(str(h) for h in links.get("houses") or ()),
            "set": str(deck.get("expansion") or ""),
            "id": str(deck.get("id") or ""),
        },
        "cards": cards,
    }


def _mv_line(card: Mapping[str, Any], card_id: str, count: int, icons: list[str]) -> dict[str, Any]:
    title = str(card.get("card_title") or "")
    maverick = bool(card.get("is_maverick"))
    return {
        "card": title or card_id,
        "count": count,
        "by": "name",
        "house": str(card.get("house") or "") if maverick or card.get("house") else "",
        "maverick": maverick,
        "legacy": bool(card.get("is_legacy")),
        "anomaly": bool(card.get("is_anomaly")),
        "enhancements": icons,
    }

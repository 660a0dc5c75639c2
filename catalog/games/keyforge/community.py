"""熔钥秘境: the community card-data format (keyteki-json-data ``packs/*.json``, one set per file).

Read besides the CSV folders (``lunzang import CotA.json``); the ingest reader asks each game's
:class:`~catalog.games.base.JsonFormat` whether it knows a JSON file, and this is KeyForge's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalog.errors import Message
from catalog.games.base import JsonFormat
from catalog.games.keyforge.vocabulary import ACTION, ARTIFACT, CREATURE, UPGRADE

_TYPE_FROM_COMMUNITY = {"action": ACTION, "artifact": ARTIFACT, "creature": CREATURE, "upgrade": UPGRADE}


def looks_like_community_json(data: Any) -> bool:
    """Whether parsed JSON is one set of the KeyForge community card-data format."""
    return isinstance(data, dict) and isinstance(data.get("cards"), list) and "code" in data


def community_set(data: Mapping[str, Any]) -> dict[str, Any]:
    """The set header of a community JSON file, as a manifest ``[[sets]]`` entry."""
    release = str(data.get("releaseDate") or "")[:7]
    return {
        "code": str(data["code"]),
        "name": str(data.get("name") or data["code"]),
        "series": "KeyForge",
        "kind": "booster",
        "release": release,
        "description": f"{data.get('name', '')}（社区数据导入，共 {len(data['cards'])} 张）",
    }


def community_rows(data: Mapping[str, Any]) -> list[tuple[int, dict[str, str]]]:
    """Each card of a community JSON file as (card index, row in our CSV columns).

    The card name is the Simplified Chinese name (``locale.zhhans.name``); the English name
    is kept in ``name_en``. A card without a Chinese name keeps its English name.
    """
    rows: list[tuple[int, dict[str, str]]] = []
    for index, card in enumerate(data["cards"], start=1):
        if not isinstance(card, Mapping):
            rows.append((index, {}))
            continue
        locale = card.get("locale") or {}
        zh_name = ((locale.get("zhhans") or {}).get("name") or "").strip()
        english = str(card.get("name") or "").strip()
        keywords = [str(k).replace(":", "(") + (")" if ":" in str(k) else "") for k in card.get("keywords") or []]
        type_word = str(card.get("type") or "")
        rows.append(
            (
                index,
                {
                    "set": str(data["code"]),
                    "number": str(card.get("number") or ""),
                    "name": zh_name or english,
                    "name_en": english,
                    "rarity": str(card.get("rarity") or ""),
                    "type": _TYPE_FROM_COMMUNITY.get(type_word.lower(), type_word),
                    "house": str(card.get("house") or ""),
                    "amber": str(card.get("amber") or 0),
                    "power": "" if card.get("power") is None else str(card["power"]),
                    "armor": "" if card.get("armor") is None else str(card["armor"]),
                    "traits": "|".join(str(t) for t in card.get("traits") or []),
                    "keywords": "|".join(keywords),
                    "text": str(card.get("text") or ""),
                },
            )
        )
    return rows


FORMAT = JsonFormat(
    name=Message(
        "KeyForge 社区卡牌数据格式（需要 code 与 cards[]）",
        "the KeyForge community card-data format (needs code and cards[])",
    ),
    recognises=looks_like_community_json,
    set_header=community_set,
    rows=community_rows,
)

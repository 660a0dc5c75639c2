"""熔钥秘境: the community card-data format (keyteki-json-data ``packs/*.json``, one set per file).

Read besides the CSV folders (``lunzang import CotA.json``); the ingest reader asks each game's
:class:`~catalog.games.base.JsonFormat` whether it knows a JSON file, and this is KeyForge's.

What the files say, and how we read it:

- a multi-house card is one collector number listed once per house: one row, its houses joined;
- an Evil Twin (rarity ``Evil Twin``, Dark Tidings on) has its original's name and other numbers:
  another card, named "… (Evil Twin)" / "…（邪恶双子）";
- the Simplified Chinese name is the card's name; a set without Chinese names writes the English
  one there, so the name comes from any set that has one (``unify``); a spreadsheet error value
  (``#N/A``) is no name: the English one stands and the import reports it;
- the Traditional Chinese name is kept (``name_zhhant``) and searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalog.errors import Message
from catalog.games.base import JsonFormat
from catalog.games.keyforge.vocabulary import ACTION, ARTIFACT, CREATURE, UPGRADE, is_spreadsheet_error

_TYPE_FROM_COMMUNITY = {"action": ACTION, "artifact": ARTIFACT, "creature": CREATURE, "upgrade": UPGRADE}
EVIL_TWIN = "Evil Twin"


def looks_like_community_json(data: Any) -> bool:
    """Whether parsed JSON is one set of the KeyForge community card-data format."""
    return isinstance(data, dict) and isinstance(data.get("cards"), list) and "code" in data


def expansion_id(data: Mapping[str, Any]) -> int:
    """The publisher's expansion id (``ids[0]``): it grows with every set, so it orders sets even
    where the file gives no release date (PV, AS, CC, ToC)."""
    ids = data.get("ids") or ()
    try:
        return int(str(ids[0])) if ids else 0
    except ValueError:
        return 0


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


def _locale_name(card: Mapping[str, Any], lang: str) -> str:
    locale = card.get("locale") or {}
    entry = locale.get(lang) if isinstance(locale, Mapping) else None
    return " ".join(str((entry or {}).get("name") or "").split()) if isinstance(entry, Mapping) else ""


def community_rows(data: Mapping[str, Any]) -> list[tuple[int, dict[str, str]]]:
    """Each card of a community JSON file as (card index, row in our CSV columns).

    The card name is the Simplified Chinese name (``locale.zhhans.name``); the English name
    is kept in ``name_en``. A card without a Chinese name keeps its English name. The entries
    of one collector number (a multi-house card) make one row whose ``house`` lists them all.
    """
    rows: list[tuple[int, dict[str, str]]] = []
    by_number: dict[str, dict[str, str]] = {}
    for index, card in enumerate(data["cards"], start=1):
        if not isinstance(card, Mapping):
            rows.append((index, {}))
            continue
        english = " ".join(str(card.get("name") or "").split())
        zh_name = _locale_name(card, "zhhans")
        zhhant = _locale_name(card, "zhhant")
        refused = ""
        if is_spreadsheet_error(zh_name):
            refused, zh_name = zh_name, ""
        if is_spreadsheet_error(zhhant):
            zhhant = ""
        rarity = str(card.get("rarity") or "")
        if rarity == EVIL_TWIN and english:
            english += " (Evil Twin)"
            zh_name = f"{zh_name}（邪恶双子）" if zh_name and zh_name != english[: -len(" (Evil Twin)")] else ""
        keywords = [str(k).replace(":", "(") + (")" if ":" in str(k) else "") for k in card.get("keywords") or []]
        type_word = str(card.get("type") or "")
        number = str(card.get("number") or "")
        house = str(card.get("house") or "")
        same = by_number.get(number) if number else None
        slug = str(card.get("id") or "")
        if same is not None and same["name_en"] == english:
            if house and house not in same["house"].split("|"):
                same["house"] += "|" + house
            if slug and slug not in same["slug"].split():
                same["slug"] += " " + slug  # the two halves of a gigantic creature (deusillus, deusillus2)
            continue
        taken = 1
        while same is not None:
            # another card under a number already taken (MG2024 305): the next free letter
            taken += 1
            same = by_number.get(number + "abcdefghijklmnopqrstuvwxyz"[taken - 1])
            if same is None:
                number += "abcdefghijklmnopqrstuvwxyz"[taken - 1]
        row = {
            "set": str(data["code"]),
            "number": number,
            "name": zh_name or english,
            "name_en": english,
            "name_zhhant": zhhant if zhhant != english else "",
            "rarity": rarity,
            "type": _TYPE_FROM_COMMUNITY.get(type_word.lower(), type_word),
            "house": house,
            "amber": str(card.get("amber") or 0),
            "power": "" if card.get("power") is None else str(card["power"]),
            "armor": "" if card.get("armor") is None else str(card["armor"]),
            "traits": "|".join(str(t) for t in card.get("traits") or []),
            "keywords": "|".join(keywords),
            "text": str(card.get("text") or ""),
            "slug": slug,
        }
        if refused:
            row["name_refused"] = refused
        if number:
            by_number.setdefault(number, row)
        rows.append((index, row))
    return rows


def unify_names(rows: list[dict[str, str]], known: Mapping[str, Any]) -> None:
    """One card across sets: one name (the database's when it holds the card under a Chinese
    name, else the newest Chinese name in ``rows``, ordered newest set first, else English), the
    newest Traditional name, every house any printing has (a reprint may change house: the deck
    of a set plays the card for that set's) and every keyteki id. ``known``: the database's
    cards by English name → (name, houses, ids, Traditional name)."""
    chinese: dict[str, str] = {}
    traditional: dict[str, str] = {}
    houses: dict[str, list[str]] = {}
    slugs: dict[str, list[str]] = {}
    for row in rows:
        english = row.get("name_en", "")
        if not english:
            continue
        if row.get("name") and row["name"] != english:
            chinese.setdefault(english, row["name"])
        if row.get("name_zhhant"):
            traditional.setdefault(english, row["name_zhhant"])
        _add(houses.setdefault(english, []), row.get("house", "").split("|"))
        _add(slugs.setdefault(english, []), row.get("slug", "").split())
    for row in rows:
        english = row.get("name_en", "")
        if not english:
            continue
        stored_name, stored_houses, stored_ids, stored_zhhant = (*(known.get(english) or ("", "", ())), "")[:4]
        row["name"] = (
            stored_name if stored_name and stored_name != english else chinese.get(english, stored_name or english)
        )
        row["name_zhhant"] = traditional.get(english) or stored_zhhant
        row["house"] = "|".join(_add(list(houses[english]), stored_houses.split("|")))
        row["slug"] = " ".join(_add(list(slugs[english]), stored_ids))


def _add(into: list[str], words: Any) -> list[str]:
    for word in words:
        if word and word not in into:
            into.append(word)
    return into


FORMAT = JsonFormat(
    name=Message(
        "KeyForge 社区卡牌数据格式（需要 code 与 cards[]）",
        "the KeyForge community card-data format (needs code and cards[])",
    ),
    recognises=looks_like_community_json,
    set_header=community_set,
    rows=community_rows,
    unify=unify_names,
    position=expansion_id,
)

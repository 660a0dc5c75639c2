"""Collection exports for the tools people use: ours, Deckbox, ManaBox, Moxfield
as CSV, and a plain XLSX of our columns.

Each file reads back into us (its preset in :mod:`catalog.collection.presets`) with nothing
lost that we store — quantity, for-trade, condition, language, finish — and uses the tool's own
documented columns and words, so the tool reads it too:

- Deckbox: ``Count, Tradelist Count, Name, Edition, Card Number, Condition, Language, Foil``
  (its condition ladder: ``Good (Lightly Played)`` …).
- ManaBox: its export header; ManaBox has no count for trade, so the copies for trade go in a
  binder named ``Trade`` (the ManaBox preset reads that binder as for trade); conditions on the
  Cardmarket ladder (``near_mint``, ``excellent`` = LP, ``good`` = MP, ``played`` = HP, ``poor``).
- Moxfield: its collection header (``Edition`` is the set code, in lower case as Moxfield writes).
- XLSX: our columns in one sheet. Every text is a string cell (never a formula, whatever it
  starts with); numbers are numbers.

A CSV cell that a spreadsheet would run as a formula is written behind a ``'``
(:func:`catalog.collection.csvio.safe_cell`), which the importer drops again. When a set code
of the collection exists in several games, a ``game`` column is added so the file stays
unambiguous.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.csvio import (
    DECKBOX_COLUMNS,
    DECKBOX_CONDITION,
    DECKBOX_LANGUAGE,
    OUR_COLUMNS,
    PRESETS,
    safe_cell,
)
from catalog.collection.grades import CONDITIONS
from catalog.errors import LunzangError, Message
from catalog.models import Card, CardSet, Game, Printing
from catalog.models.columns import CARD, GAME, ITEM, PRINTING, SET
from catalog.text import fold

EXPORTS = (*PRESETS, "xlsx")
MANABOX_COLUMNS = (
    "Binder Name",
    "Binder Type",
    "Name",
    "Set code",
    "Set name",
    "Collector number",
    "Foil",
    "Rarity",
    "Quantity",
    "ManaBox ID",
    "Scryfall ID",
    "Purchase price",
    "Misprint",
    "Altered",
    "Condition",
    "Language",
    "Purchase price currency",
)
MANABOX_CONDITION = {"NM": "near_mint", "LP": "excellent", "MP": "good", "HP": "played", "DMG": "poor"}
MANABOX_LANGUAGE = {"简中": "zh_CN", "繁中": "zh_TW", "EN": "en", "日": "ja"}
MANABOX_TRADE_BINDER = "Trade"
MANABOX_BINDER = "Collection"
MOXFIELD_COLUMNS = (
    "Count",
    "Tradelist Count",
    "Name",
    "Edition",
    "Condition",
    "Language",
    "Foil",
    "Tags",
    "Last Modified",
    "Collector Number",
    "Alter",
    "Proxy",
    "Purchase Price",
)
MOXFIELD_CONDITION = {
    "NM": "Near Mint",
    "LP": "Lightly Played",
    "MP": "Moderately Played",
    "HP": "Heavily Played",
    "DMG": "Damaged",
}
MOXFIELD_LANGUAGE = {"简中": "Chinese Simplified", "繁中": "Chinese Traditional", "EN": "English", "日": "Japanese"}


def _unknown(preset: str) -> LunzangError:
    return LunzangError(
        Message(
            f"未知的导出格式「{preset}」，可用：{'、'.join(EXPORTS)}",
            f"unknown export preset '{preset}'; known: {', '.join(EXPORTS)}",
        )
    )


def _rows(session: Session, user_id: int) -> tuple[list[Any], bool]:
    """The user's items (quantity > 0) in set and number order, and whether a game column is needed."""
    query = (
        select(
            GAME.slug,
            SET.code,
            SET.name,
            PRINTING.number,
            CARD.name,
            ITEM.quantity,
            ITEM.condition,
            ITEM.language,
            ITEM.finish,
            ITEM.for_trade,
            PRINTING.rarity,
        )
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .where(ITEM.user_id == user_id, ITEM.quantity > 0)
    )
    rows = list(session.execute(query).all())
    codes: dict[str, set[str]] = {}
    for code_key, game in session.execute(select(SET.code_key, GAME.slug).join(Game, GAME.id == SET.game_id)):
        codes.setdefault(code_key, set()).add(game)
    need_game = any(len(codes.get(fold(r[1]), ())) > 1 for r in rows)
    order = {c: i for i, c in enumerate(CONDITIONS)}
    rows.sort(key=lambda r: (r[0], r[1], r[3], order[r[6]], r[7], r[8]))
    return rows, need_game


def _ours(rows: list[Any], need_game: bool, cell: Callable[[str], Any]) -> list[list[Any]]:
    out: list[list[Any]] = [[*OUR_COLUMNS, "game"] if need_game else list(OUR_COLUMNS)]
    for game, code, _set_name, number, name, qty, cond, lang, finish, for_trade, _rarity in rows:
        cells = [cell(code), cell(number), cell(name), qty, cond, lang, finish, for_trade]
        out.append([*cells, game] if need_game else cells)
    return out


def _deckbox(rows: list[Any], need_game: bool) -> list[list[Any]]:
    out: list[list[Any]] = [[*DECKBOX_COLUMNS, "Game"] if need_game else list(DECKBOX_COLUMNS)]
    for game, _code, set_name, number, name, qty, cond, lang, finish, for_trade, _rarity in rows:
        cells = [
            qty,
            for_trade,
            safe_cell(name),
            safe_cell(set_name),
            safe_cell(number),
            DECKBOX_CONDITION[cond],
            DECKBOX_LANGUAGE[lang],
            "foil" if finish == "闪" else "",
        ]
        out.append([*cells, game] if need_game else cells)
    return out


def _manabox(rows: list[Any], need_game: bool) -> list[list[Any]]:
    out: list[list[Any]] = [[*MANABOX_COLUMNS, "Game"] if need_game else list(MANABOX_COLUMNS)]
    for game, code, set_name, number, name, qty, cond, lang, finish, for_trade, rarity in rows:
        for binder, count in ((MANABOX_BINDER, qty - for_trade), (MANABOX_TRADE_BINDER, for_trade)):
            if count <= 0:
                continue
            cells = [
                binder,
                "binder",
                safe_cell(name),
                safe_cell(code),
                safe_cell(set_name),
                safe_cell(number),
                "foil" if finish == "闪" else "normal",
                safe_cell(rarity),
                count,
                "",
                "",
                "",
                "false",
                "false",
                MANABOX_CONDITION[cond],
                MANABOX_LANGUAGE[lang],
                "",
            ]
            out.append([*cells, game] if need_game else cells)
    return out


def _moxfield(rows: list[Any], need_game: bool) -> list[list[Any]]:
    out: list[list[Any]] = [[*MOXFIELD_COLUMNS, "Game"] if need_game else list(MOXFIELD_COLUMNS)]
    for game, code, _set_name, number, name, qty, cond, lang, finish, for_trade, _rarity in rows:
        cells = [
            qty,
            for_trade,
            safe_cell(name),
            safe_cell(code.lower()),
            MOXFIELD_CONDITION[cond],
            MOXFIELD_LANGUAGE[lang],
            "foil" if finish == "闪" else "",
            "",
            "",
            safe_cell(number),
            "False",
            "False",
            "",
        ]
        out.append([*cells, game] if need_game else cells)
    return out


def export_collection(*, session: Session, user_id: int, preset: str = "lunzang") -> str:
    """The user's collection as CSV text in our columns or a tool's (items with quantity > 0).

    Importing it again in ``replace`` mode changes nothing, in every preset.
    """
    if preset not in PRESETS:
        raise _unknown(preset)
    rows, need_game = _rows(session, user_id)
    if preset == "deckbox":
        table = _deckbox(rows, need_game)
    elif preset == "manabox":
        table = _manabox(rows, need_game)
    elif preset == "moxfield":
        table = _moxfield(rows, need_game)
    else:
        table = _ours(rows, need_game, safe_cell)
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(table)
    return out.getvalue()


def export_xlsx(*, session: Session, user_id: int) -> bytes:
    """The user's collection as an XLSX workbook of our columns; no cell is a formula."""
    # openpyxl costs ~0.25 s to import: only an XLSX export pays it
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    rows, need_game = _rows(session, user_id)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("收藏 collection")
    for values in _ours(rows, need_game, str):
        cells = []
        for value in values:
            cell = WriteOnlyCell(sheet, value=value)
            if isinstance(value, str):
                cell.data_type = "s"  # text stays text: "=1+1" is shown, never run
            cells.append(cell)
        sheet.append(cells)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()

"""The one card/printing resolver: from what people write (set code or set name, collector
number, card name) to the printing or card it names, in one game or any.

:class:`PrintingIndex` answers many lookups with a few bulk queries (a 100,000-row CSV must not
cost 100,000 queries); :func:`find_printing` is the one-off form the API uses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from catalog.errors import LunzangError, Message
from catalog.models import Card, CardSet, Game, Printing, table_of
from catalog.text import fold

CARD = table_of(Card).c
PRINTING = table_of(Printing).c
SET = table_of(CardSet).c
GAME = table_of(Game).c


class UnknownPrinting(LunzangError):
    """The set, number or name names no printing (or several)."""

    code = "unknown_printing"
    status = 404

    def __init__(self, message: Message, column: str = "number") -> None:
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class SetInfo:
    id: int
    game: str
    code: str
    name: str


@dataclass(frozen=True)
class PrintingInfo:
    id: int
    card_id: int
    set: SetInfo
    number: str
    name: str
    rarity: str
    # every other name the card is stored under, folded: the English name, the pinyin
    other_names: frozenset[str] = frozenset()
    initials: str = ""  # the pinyin initials (``swk``): a last resort, as in decklists and search

    def is_named(self, text: str) -> bool:
        """Whether ``text`` is one of the card's names: as stored (folded: script, width, case,
        spaces), its English name (KeyForge ``name_en``) or its pinyin (``Sun Wukong``)."""
        key = fold(text)
        return key == fold(self.name) or key in self.other_names


def number_tail(number: str) -> str:
    """A collector number as people shorten it: the part after the last hyphen, a number
    compared as a number (``M4-017``, ``017``, ``17`` and ``m4-17`` all give ``17``)."""
    part = fold(number).rsplit("-", 1)[-1]
    return (part.lstrip("0") or part) if part.isdigit() else part


def number_candidates(code: str, number: str) -> tuple[str, ...]:
    """The folded keys a number written for set ``code`` may mean, best first: as written, then
    with the set's prefix (``001`` in M4 → ``m4-001``)."""
    key = fold(number)
    prefixed = fold(f"{code}-{number}")
    return (key,) if key.startswith(fold(code)) else (key, prefixed)


def _printing_rows() -> Any:
    """The columns :class:`PrintingIndex` keeps of each printing, with its card's name."""
    return select(
        PRINTING.id,
        PRINTING.card_id,
        PRINTING.set_id,
        PRINTING.number,
        PRINTING.number_key,
        PRINTING.rarity,
        CARD.name,
        CARD.name_key,
        CARD.name_en,
        CARD.pinyin,
        CARD.initials,
    ).join(Card, CARD.id == PRINTING.card_id)


class PrintingIndex:
    """The sets of every game, and the printings of the sets/cards asked for, in memory."""

    def __init__(self, session: Session) -> None:
        self.session = session
        games = dict(session.execute(select(GAME.id, GAME.slug)).all())
        self.sets: dict[int, SetInfo] = {}
        self.by_code: dict[str, list[SetInfo]] = {}
        self.by_set_name: dict[str, list[SetInfo]] = {}
        for set_id, game_id, code, code_key, name in session.execute(
            select(SET.id, SET.game_id, SET.code, SET.code_key, SET.name)
        ):
            info = SetInfo(set_id, games[game_id], code, name)
            self.sets[set_id] = info
            self.by_code.setdefault(code_key, []).append(info)
            self.by_set_name.setdefault(fold(name), []).append(info)
        self.numbers: dict[tuple[int, str], PrintingInfo] = {}
        self.by_tail: dict[tuple[int, str], list[PrintingInfo]] = {}
        self._tails: set[int] = set()  # sets whose by_tail is built
        self.numbers_of_set: dict[int, list[PrintingInfo]] = {}
        self.in_set_by_name: dict[tuple[int, str], list[PrintingInfo]] = {}
        self.by_card_name: dict[str, list[PrintingInfo]] = {}
        self._loaded_sets: set[int] = set()
        self._set_memo: dict[tuple[str, str | None], list[SetInfo]] = {}

    def ambiguous_codes(self) -> set[str]:
        """Set codes that more than one game uses (an export then adds a ``game`` column)."""
        return {infos[0].code for infos in self.by_code.values() if len({i.game for i in infos}) > 1}

    def find_sets(self, text: str, game: str | None = None) -> list[SetInfo]:
        """Sets whose code (or else name) folds to ``text``, in ``game`` if given (memoised:
        a large file names the same few sets on every row)."""
        memo = self._set_memo.get((text, game))
        if memo is not None:
            return memo
        key = fold(text)
        found = self.by_code.get(key) or self.by_set_name.get(key) or []
        memo = self._set_memo[(text, game)] = [s for s in found if game is None or s.game == game]
        return memo

    def load_sets(self, set_ids: Iterable[int]) -> None:
        """Load the printings of these sets (one query; sets already loaded are skipped)."""
        if isinstance(set_ids, list) and len(set_ids) == 1 and set_ids[0] in self._loaded_sets:
            return  # the common case: every row of a file asks for its set again
        wanted = [i for i in set(set_ids) if i not in self._loaded_sets]
        if not wanted:
            return
        self._loaded_sets.update(wanted)
        query = _printing_rows().where(PRINTING.set_id.in_(wanted))
        self._add(self.session.execute(query))

    def load_names(self, names: Iterable[str]) -> None:
        """Load every printing of the cards with these names: folded Chinese (either script),
        pinyin (``sunwukong``) or English (``Sun Wukong``), the names search accepts."""
        keys = sorted({fold(n) for n in names} - set(self.by_card_name))
        if not keys:
            return
        for key in keys:
            self.by_card_name.setdefault(key, [])
        for start in range(0, len(keys), 900):
            chunk = keys[start : start + 900]
            query = _printing_rows().where(CARD.name_key.in_(chunk) | CARD.pinyin.in_(chunk) | CARD.initials.in_(chunk))
            self._add(self.session.execute(query), only_names=True, wanted=set(chunk))
        missing = {k for k in keys if not self.by_card_name[k]}
        if missing and any(k.isascii() for k in missing):
            # English names are stored as written (no folded column): the cards that have one, once
            english = dict(self.session.execute(select(CARD.id, CARD.name_en).where(CARD.name_en != "")).all())
            ids = [card_id for card_id, name_en in english.items() if fold(name_en) in missing]
            for start in range(0, len(ids), 900):
                query = _printing_rows().where(CARD.id.in_(ids[start : start + 900]))
                self._add(self.session.execute(query), only_names=True, wanted=missing)

    def _add(self, rows: Iterable[Any], only_names: bool = False, wanted: set[str] | None = None) -> None:
        for pid, card_id, set_id, number, number_key, rarity, name, name_key, name_en, pinyin, initials in rows:
            others = frozenset(k for k in (fold(name_en or ""), pinyin or "") if k)
            info = PrintingInfo(pid, card_id, self.sets[set_id], number, name, rarity, others, initials or "")
            if only_names:
                for key in {name_key, *others, initials or name_key}:
                    if wanted is None or key in wanted:
                        hits = self.by_card_name.setdefault(key, [])
                        if info not in hits:
                            hits.append(info)
                continue
            self.numbers[(set_id, number_key)] = info
            self.numbers_of_set.setdefault(set_id, []).append(info)
            self.in_set_by_name.setdefault((set_id, name_key), []).append(info)
            for key in others:
                self.in_set_by_name.setdefault((set_id, key), []).append(info)

    def named(self, name: str, game: str | None = None) -> list[PrintingInfo]:
        """The loaded printings of the cards ``name`` names, in the order decklists try: the
        Chinese name (either script), else the English name or pinyin, else the initials."""
        key = fold(name)
        hits = [h for h in self.by_card_name.get(key, []) if game is None or h.set.game == game]
        for keep in (lambda h: fold(h.name) == key, lambda h: key in h.other_names):
            chosen = [h for h in hits if keep(h)]
            if chosen:
                return chosen
        return hits

    def find_number(self, card_set: SetInfo, number: str) -> PrintingInfo | None:
        """The printing of ``card_set`` a written number means: as written, with the set's prefix,
        or by its tail when one printing has it (``1`` = ``001`` = ``M4-001``; loads the set)."""
        self.load_sets([card_set.id])
        found = self.numbers.get((card_set.id, fold(number)))  # as written: most rows, at once
        if found is not None:
            return found
        for key in number_candidates(card_set.code, number)[1:]:
            found = self.numbers.get((card_set.id, key))
            if found is not None:
                return found
        if card_set.id not in self._tails:  # the tails of a set, once, when a number first needs them
            self._tails.add(card_set.id)
            for info in self.numbers_of_set.get(card_set.id, []):
                self.by_tail.setdefault((card_set.id, number_tail(info.number)), []).append(info)
        hits = self.by_tail.get((card_set.id, number_tail(number)), [])
        return hits[0] if len(hits) == 1 else None

    def resolve(
        self, *, set_text: str, number: str, name: str, game: str | None = None, set_name: str = ""
    ) -> PrintingInfo:
        """The one printing the cells name, or :class:`UnknownPrinting` with the column at fault.

        The set by its code (any case) or name (either script); ``set_name``, when the file has
        both columns, is tried when the code names no set. Call :meth:`load_sets` /
        :meth:`load_names` first for the sets and names involved.
        """
        if not set_text or (set_name and not self.find_sets(set_text, game) and self.find_sets(set_name, game)):
            set_text = set_name or set_text
        if set_text:
            sets = self.find_sets(set_text, game)
            if not sets:
                raise UnknownPrinting(Message(f"未知的系列「{set_text}」", f"unknown set '{set_text}'"), "set")
            if len(sets) > 1:
                games = "、".join(s.game for s in sets)
                raise UnknownPrinting(
                    Message(
                        f"系列「{set_text}」在多个游戏中都有（{games}）：请加一列 game",
                        f"set '{set_text}' exists in several games ({games}): add a game column",
                    ),
                    "set",
                )
            card_set = sets[0]
            self.load_sets([card_set.id])
            if number:
                found = self.find_number(card_set, number)
                if found is None:
                    raise UnknownPrinting(
                        Message(
                            f"系列 {card_set.code} 中没有编号 {number}", f"set {card_set.code} has no number {number}"
                        )
                    )
                # the number is trusted; the name must be one of the card's names (
                # Deckbox writes English names), so only a real mismatch is refused
                if name and not found.is_named(name):
                    raise UnknownPrinting(
                        Message(
                            f"{card_set.code} {found.number} 是「{found.name}」，不是「{name}」",
                            f"{card_set.code} {found.number} is '{found.name}', not '{name}'",
                        ),
                        "name",
                    )
                return found
            if not name:
                raise UnknownPrinting(Message("请填写编号或卡名", "give a number or a name"), "number")
            hits = self.in_set_by_name.get((card_set.id, fold(name)), [])
            if len(hits) == 1:
                return hits[0]
            if not hits:
                raise UnknownPrinting(
                    Message(f"系列 {card_set.code} 中没有卡牌「{name}」", f"set {card_set.code} has no card '{name}'"),
                    "name",
                )
            numbers = "、".join(h.number for h in hits)
            raise UnknownPrinting(
                Message(
                    f"系列 {card_set.code} 中「{name}」有多个编号（{numbers}）：请填写编号",
                    f"'{name}' has several numbers in {card_set.code} ({numbers}): give the number",
                ),
                "number",
            )
        if not name:
            raise UnknownPrinting(Message("请填写系列和编号，或卡名", "give set and number, or a name"), "set")
        self.load_names([name])
        hits = self.named(name, game)
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise UnknownPrinting(Message(f"没有名为「{name}」的卡牌", f"no card named '{name}'"), "name")
        where = "、".join(f"{h.set.code} {h.number}" for h in hits[:6])
        raise UnknownPrinting(
            Message(
                f"「{name}」有多个印刷（{where}）：请填写系列",
                f"'{name}' has several printings ({where}): give the set",
            ),
            "set",
        )


def find_printing(
    *, session: Session, number: str, set_code: str | None = None, game: str | None = None
) -> PrintingInfo:
    """The one printing with collector ``number`` (folded: ``m4-001`` = ``M4-001``), in the set
    ``set_code`` (its code or name) and the game slug ``game`` when given; else
    :class:`UnknownPrinting`. Within a set the number may leave out the set's prefix
    (``--set M4 001`` is M4-001)."""
    number = number.strip()
    if set_code and set_code.strip():
        # the number may leave out the set's prefix or padding (PrintingIndex.find_number)
        return PrintingIndex(session).resolve(set_text=set_code.strip(), number=number, name="", game=game)
    games = dict(session.execute(select(GAME.id, GAME.slug)).all())
    query = (
        select(
            PRINTING.id,
            PRINTING.card_id,
            PRINTING.number,
            PRINTING.rarity,
            CARD.name,
            SET.id,
            SET.game_id,
            SET.code,
            SET.name,
        )
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .where(PRINTING.number_key == fold(number))
        .order_by(PRINTING.id)
    )
    if game:
        query = query.where(SET.game_id.in_([gid for gid, slug in games.items() if slug == game]))
    rows = [
        PrintingInfo(pid, card_id, SetInfo(set_id, games[game_id], code, set_name), found, name, rarity)
        for pid, card_id, found, rarity, name, set_id, game_id, code, set_name in session.execute(query)
    ]
    if not rows:
        scope = f"（{game}）" if game else ""
        raise UnknownPrinting(
            Message(
                f"没有收藏编号为「{number}」的印刷{scope}",
                f"no printing numbered '{number}'" + (f" ({game})" if game else ""),
            )
        )
    if len(rows) > 1:
        where = "、".join(f"{row.set.game} {row.set.code}" for row in rows)
        raise UnknownPrinting(
            Message(
                f"收藏编号「{number}」有多张印刷（{where}）：请用 --game / --set 指明",
                f"several printings are numbered '{number}' ({where}): give the game or set",
            )
        )
    return rows[0]


def find_card(*, session: Session, game: str, name: str) -> Card:
    """The card of ``game`` (slug) named ``name``: exactly, else folded (script, width, case;
    the first such card), else :class:`UnknownPrinting` (column ``name``)."""
    query = select(Card).join(Game, GAME.id == CARD.game_id).where(GAME.slug == game)
    card = session.scalars(query.where(CARD.name == name)).first()
    if card is None:
        card = session.scalars(query.where(CARD.name_key == fold(name)).order_by(CARD.id)).first()
    if card is None:
        raise UnknownPrinting(Message(f"没有名为「{name}」的卡牌", f"no card named '{name}'"), "name")
    return card

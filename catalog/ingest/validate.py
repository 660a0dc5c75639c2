"""The check half of an import: one source against itself and the database (rows parse,
reprints agree, templates can be filled, formats name real cards and sets). Every problem is
collected, located as ``file:line: column``; nothing is written here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import Any, Self

from sqlalchemy import func
from sqlmodel import Session, select

from catalog.errors import LunzangError, Message
from catalog.games import GameModule
from catalog.games.base import ParsedCard, RowErrors
from catalog.ingest.bulk import BATCH, select_in
from catalog.ingest.cardvalues import PRINTING_FIELDS, STORED_CARD, card_columns, card_values
from catalog.ingest.crosscheck import (
    check_formats,
    check_reprints_against_database,
    check_templates_fillable,
    full_card,
)
from catalog.ingest.differences import column_word, describe, differing_fields, refused_name
from catalog.ingest.sources import Problem, Row, Source
from catalog.ingest.spool import Spool
from catalog.models import (
    Card,
    CardSet,
    Game,
    Printing,
    table_of,
)
from catalog.text import fold

Progress = Callable[[str, int, int], None]


class ImportFailed(LunzangError):
    """The import found problems; nothing was (or may be) written."""

    code = "import_failed"

    def __init__(self, problems: list[Problem]):
        super().__init__(
            Message(
                f"导入失败：{len(problems)} 个错误，未写入任何数据",
                f"import failed: {len(problems)} errors, nothing written",
            )
        )
        self.problems = problems


CHUNK = 2000  # rows checked, then written, at a time
WHOLE_SET = 4000  # a set of up to this many printings is read whole (existing_printings),
WHOLE_SET_FACTOR = 4  # or of up to this many times the numbers a chunk names in it
# A checked printing row, as the check sees it: set code, number, card name, printing fields,
# and the card's stored values (STORED_CARD) when this row is the card's first in the import.
Checked = tuple[str, str, str, str, dict[str, Any], tuple[Any, ...] | None]  # …, number, folded number, …
StoredCard = tuple[int, str, str]  # a card in the database: id, name_en, rules_hash
# What the writer reads back of one chunk (see Plan.checked_chunks).
FirstRow = tuple[str, tuple[Any, ...] | None, StoredCard | None]  # card name, stored values, the card in the database
PrintingRow = tuple[str, str, str, str, tuple[Any, ...]]  # set code, number, folded, card name, PRINTING_VALUES
STORED_PRINTING = ("id", "set_id", "number", *PRINTING_FIELDS)  # a printing in the database
PRINTING_CARD = ("name", "name_en", "rules_hash")  # and its card's, read with it
PRINTING_VALUES = PRINTING_FIELDS[1:-1]  # a printing's parsed fields (the rest: its card, its number)


def chunks(rows: Iterable[Row], size: int | None = None) -> Iterator[list[Row]]:
    size = size or CHUNK
    batch: list[Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class Plan:
    """Validates one source against the database (:mod:`catalog.ingest.write` writes it).

    The rows are streamed (:meth:`Source.iter_rows`) in chunks of :data:`CHUNK`; what stays
    for the whole import is the index every row is checked against, kept small (a few hundred
    bytes per printing: CHANGELOG, Benchmarks; ``tests/test_import_streaming.py`` bounds the
    growth of the whole import):

    - ``numbers``: ``set code + \x1f + folded number`` → where it was first seen (duplicates);
    - ``cards``: card name → (rules digest, where first seen, rarity mask, its set or sets) —
      the digest finds a reprint that contradicts the first printing, the rest is the card's
      ``card_search`` summary; when the card is written the value becomes its id;
    - the first English name of a card (KeyForge), the rarities of each set (pack templates).

    What the writer needs of each checked chunk is kept in a :class:`~catalog.ingest.spool.Spool`:
    in memory up to :data:`~catalog.ingest.spool.SPOOL_ROWS` rows, past them in a temporary file.

    A place is ``file index << 32 | line`` (see :meth:`place`). The values a message needs from
    an earlier row (a contradiction's first printing) are read again from the file, on the
    error path only.
    """

    def __init__(self, session: Session, source: Source, progress: Progress | None):
        assert source.game is not None
        self.session = session
        self.source = source
        self.game: GameModule = source.game
        self.progress = progress
        self.problems: list[Problem] = []
        self.read_problems: list[Problem] = []  # rows that could not be read at all
        self.files = source.files()
        self.file_index = {name: i for i, name in enumerate(self.files)}
        self.cards: dict[str, Any] = {}  # name → (digest, place, rarity mask, set code | frozenset) | card id
        self.name_en: dict[str, str] = {}
        self.rarities_by_set: dict[str, set[str]] = {}
        self.rows = 0
        self.printing_rows = 0
        # open vocabularies: (column, word) → rows that use a word the game did not know
        self.new_words: dict[tuple[str, str], int] = {}
        self.notes: list[Problem] = []  # what was read otherwise than written (a refused name)
        # games with errata: each card's words as its first (newest) row has them, and the
        # cards a reprint words otherwise (errata); set code → the set's order (newer higher)
        self.errata_keys: dict[str, int] = {}
        self.errata: set[str] = set()
        self.set_positions = {spec.code: spec.position for spec in source.sets}
        self.db_newest: dict[int, int] = {}  # database card id → its newest set's position
        # The checked rows, chunk by chunk, for the writer (plain values only): no second parse,
        # and past a bound a temporary file, so a large import does not hold them in memory.
        self.checked = Spool()

    def problem(self, file: str, line: int, column: str, zh: str, en: str) -> None:
        self.problems.append(Problem(file, line, column, Message(zh, en)))

    def checked_chunks(self) -> Iterator[tuple[list[FirstRow], list[PrintingRow], list[tuple[Any, ...]], int]]:
        """The checked rows again, chunk by chunk, as :meth:`plan` kept them: what the writer
        needs and nothing it would only find unchanged (the check compared them already, with
        the database's rows it looked up once).

        Each chunk: the cards it prints first (name; stored values, or None when the database
        holds the same rules; the database's card or None), the printings that are new or
        changed, the database's rows of those that change (:data:`STORED_PRINTING` columns),
        and how many of the chunk's printings the database already holds as they are. Given
        back once (a chunk kept in memory is let go as it is given)."""
        yield from self.checked

    def close(self) -> None:
        """Let go of the checked rows and their temporary file (written or not)."""
        self.checked.close()

    def place(self, row: Row) -> int:
        return self.file_index[row.file] << 32 | row.line

    def where(self, place: int) -> tuple[str, int]:
        return self.files[place >> 32], place & 0xFFFFFFFF

    # ---- planning -------------------------------------------------------------------------
    def plan(self) -> Self:
        session, game = self.session, self.game
        self.game_row = session.scalars(select(Game).where(Game.slug == game.slug)).first()
        game_id = self.game_row.id if self.game_row else None
        self.db_sets: dict[str, CardSet] = {}
        self.db_card_count = 0
        self.db_printing_count = 0
        self.db_set_sizes: dict[int, int] = {}  # set id → its printings in the database
        if game_id is not None:
            self.db_sets = {s.code: s for s in session.scalars(select(CardSet).where(CardSet.game_id == game_id))}
            card = table_of(Card)
            self.db_card_count = session.execute(
                select(func.count()).select_from(card).where(card.c.game_id == game_id)
            ).scalar_one()
            set_ids = [s.id for s in self.db_sets.values()]
            if set_ids:
                pt = table_of(Printing)
                sizes = session.execute(
                    select(pt.c.set_id, func.count()).where(pt.c.set_id.in_(set_ids)).group_by(pt.c.set_id)
                )
                self.db_set_sizes = {set_id: int(count) for set_id, count in sizes}
                self.db_printing_count = sum(self.db_set_sizes.values())
        self._check_rows()
        if self.read_problems:
            return self  # as when the rows could not be read before: nothing more is checked
        check_reprints_against_database(self)
        check_templates_fillable(self)
        check_formats(self)
        del self.numbers, self.covered, self.db_changed
        return self

    def parsed(self, row: Row) -> tuple[str | None, str, ParsedCard | None, list[Any]]:
        """(set code, number, parsed card or None, field errors) of one row."""
        values = row.values
        set_word = values.get("set", "").strip()
        set_code = self.folded_sets.get(fold(set_word)) if set_word else None
        number = values.get("number", "").strip()
        try:
            return set_code, number, self.game.parse_row(values), []
        except RowErrors as errors:
            return set_code, number, None, errors.errors

    def _check_rows(self) -> None:
        known_sets = {s.code for s in self.source.sets} | set(self.db_sets)
        self.folded_sets = {fold(code): code for code in known_sets}
        self.numbers: dict[str, int] = {}
        self.covered: set[int] = set()  # database printings this import rewrites
        self.db_changed: dict[int, str] = {}  # database card id → name, for cards whose rules differ
        pending: list[tuple[Row, str, dict[str, Any], int]] = []  # contradictions within the import
        total = self.source.estimated_rows()
        index = 0
        # the per-row work is most of a large check: what it reads each row, held in locals
        cards, numbers, rarities_by_set, file_index = self.cards, self.numbers, self.rarities_by_set, self.file_index
        db_sets = self.db_sets
        errata = self.game.errata
        for code, card_set in db_sets.items():
            self.set_positions.setdefault(code, card_set.position)
        for chunk in chunks(self.source.iter_rows(self.read_problems)):
            first_seen: dict[str, str] = {}  # name → rules digest, for cards new to this import
            checked: list[Checked] = []
            keys: dict[str, list[str]] = {}  # set code → numbers, for the database lookup
            self.rows += len(chunk)
            for row in chunk:
                index += 1
                if self.progress and index % 5000 == 0:
                    self.progress("检查", index, max(total, index))
                set_code, number, parsed, errors = self.parsed(row)
                number_key = ""
                if set_code is None:
                    set_word = row.values.get("set", "").strip()
                    self.problem(
                        row.file,
                        row.line,
                        "set",
                        f"未知的系列代码「{set_word}」：manifest.toml 和数据库里都没有",
                        f"unknown set code {set_word!r}: not in manifest.toml nor in the database",
                    )
                if not number:
                    self.problem(row.file, row.line, "number", "编号为空", "the collector number is empty")
                elif set_code is not None:
                    number_key = fold(number)
                    key = f"{set_code}\x1f{number_key}"
                    first = numbers.get(key)
                    if first is not None:
                        first_file, first_line = self.where(first)
                        self.problem(
                            row.file,
                            row.line,
                            "number",
                            f"编号 {number} 在系列 {set_code} 中重复（{first_file}:{first_line} 已有）",
                            f"duplicate number {number} in set {set_code} (first at {first_file}:{first_line})",
                        )
                    else:
                        numbers[key] = file_index[row.file] << 32 | row.line  # self.place(row)
                for error in errors:
                    self.problem(row.file, row.line, error.column, error.message.zh, error.message.en)
                if parsed is None:
                    continue
                name = row.values["name"].strip()
                card = parsed.card
                stored = card_values(card)
                if "new_words" in parsed.printing:
                    for word in parsed.printing["new_words"]:
                        self.new_words[word] = self.new_words.get(word, 0) + 1
                if "notes" in parsed.printing:
                    for column, value in parsed.printing["notes"]:
                        self.notes.append(refused_name(row, column, value))
                if errata:
                    words = hash(self.game.errata_key(card))
                    first_words = self.errata_keys.setdefault(name, words)
                    if first_words != words:
                        self.errata.add(name)
                digest = bytes.fromhex(stored[-1])
                if card.get("name_en"):
                    self.name_en.setdefault(name, card["name_en"])
                known = cards.get(name)
                if known is None:
                    # the card's first row: its index entry made once, with this printing in it
                    place = file_index[row.file] << 32 | row.line
                    if set_code is not None and number:
                        cards[name] = (digest, place, 1 << parsed.printing["rarity_rank"], set_code)
                    else:
                        cards[name] = (digest, place, 0, None)
                    first_seen[name] = stored[-1]
                elif known[0] != digest and not errata:
                    pending.append((row, name, dict(zip(STORED_CARD, stored, strict=True)), known[1]))
                if set_code is None or not number:
                    continue
                self.printing_rows += 1
                if known is not None:
                    sets = known[3]
                    if sets is None:
                        sets = set_code
                    elif isinstance(sets, str) and sets != set_code:
                        sets = frozenset((sets, set_code))
                    elif isinstance(sets, frozenset) and set_code not in sets:
                        sets = sets | {set_code}
                    cards[name] = (known[0], known[1], known[2] | 1 << parsed.printing["rarity_rank"], sets)
                rarities = rarities_by_set.get(set_code)
                if rarities is None:
                    rarities = rarities_by_set[set_code] = set()
                rarities.add(parsed.printing["rarity"])
                if set_code in db_sets:
                    keys.setdefault(set_code, []).append(number)
                checked.append((set_code, number, number_key, name, parsed.printing, None if known else stored))
            stored_cards, stored_printings = self._look_up_database(first_seen, keys)
            if not self.problems and not self.read_problems:
                # the writer reads it back: no second parse, no second lookup in the database,
                # and no row it would only find unchanged
                self.checked.add(self._to_write(checked, stored_cards, stored_printings), len(chunk))
        if self.progress:
            self.progress("检查", index, index)
        self._describe_contradictions(pending)

    def _look_up_database(
        self, first_seen: dict[str, str], keys: dict[str, list[str]]
    ) -> tuple[dict[str, StoredCard], dict[tuple[int, str], tuple[Any, ...]]]:
        """One chunk against the database: which existing cards it changes the rules of, and
        which existing printings it rewrites; the rows of both, by card name and by (set id,
        number), each printing's followed by its card's :data:`PRINTING_CARD` columns.

        The printings are read first, with their cards: a re-import finds most of a chunk's
        cards there, and looks up by name only the others (new printings, renamed cards)."""
        stored: dict[str, StoredCard] = {}
        printings: dict[tuple[int, str], tuple[Any, ...]] = {}
        if self.db_printing_count:
            card_at = STORED_PRINTING.index("card_id")
            for printing in self.existing_printings(keys, STORED_PRINTING, card_columns=PRINTING_CARD):
                self.covered.add(printing[0])
                found = printings[(printing[1], printing[2])] = tuple(printing[: len(STORED_PRINTING) + 3])
                name, name_en, digest = found[len(STORED_PRINTING) :]
                if name in first_seen:
                    stored[name] = (found[card_at], name_en, digest)
        if self.db_card_count and len(stored) < len(first_seen):
            for card_id, name, name_en, digest in self.existing_cards(
                [name for name in first_seen if name not in stored], ("id", "name", "name_en", "rules_hash")
            ):
                stored[name] = (card_id, name_en, digest)
        for name, (card_id, _name_en, digest) in stored.items():
            if digest != first_seen[name]:
                self.db_changed[card_id] = name
        if self.game.errata:
            self._read_db_newest([stored[name][0] for name in stored if stored[name][2] != first_seen[name]])
        return stored, printings

    def _read_db_newest(self, card_ids: list[int]) -> None:
        """The newest set (by position) each of ``card_ids`` is printed in, in the database."""
        if not card_ids:
            return
        pt, st = table_of(Printing), table_of(CardSet)
        for start in range(0, len(card_ids), BATCH):
            query = (
                select(pt.c.card_id, func.max(st.c.position))
                .join(st, st.c.id == pt.c.set_id)
                .where(pt.c.card_id.in_(card_ids[start : start + BATCH]))
                .group_by(pt.c.card_id)
            )
            self.db_newest.update({card_id: int(position or 0) for card_id, position in self.session.execute(query)})

    def _to_write(
        self,
        checked: list[Checked],
        stored_cards: dict[str, StoredCard],
        stored_printings: dict[tuple[int, str], tuple[Any, ...]],
    ) -> tuple[list[FirstRow], list[PrintingRow], list[tuple[Any, ...]], int]:
        """What the writer needs of one checked chunk (see :meth:`checked_chunks`).

        A printing the database holds with the same fields, for a card of the same name, is
        left out (counted): the writer would give it the id of that card, the one it has. A
        card's stored values are left out when the database's rules hash is the same: the
        writer has no rules to write then (an English name only a later row gives is read
        back from the database's row, see :meth:`PlanWriter._write_cards`)."""
        firsts: list[FirstRow] = []
        printings: list[PrintingRow] = []
        before: list[tuple[Any, ...]] = []
        unchanged = 0
        # the fields compared, in STORED_PRINTING order; card_id is compared by the card's name
        assert STORED_PRINTING[3:] == ("card_id", *PRINTING_VALUES, "number_key")
        size = len(STORED_PRINTING)
        fields = itemgetter(*PRINTING_VALUES)
        set_ids = {code: card_set.id for code, card_set in self.db_sets.items()}
        for set_code, number, number_key, name, printing, stored in checked:
            if stored is not None:
                db_card = stored_cards.get(name)
                same_rules = db_card is not None and db_card[2] == stored[-1]
                if not same_rules and db_card is not None and self.game.errata:
                    # an erratum: the newest set's words win; when the database prints the card in a
                    # newer set than this import's newest, the card keeps the database's words
                    self.errata.add(name)
                    if self.db_newest.get(db_card[0], -1) > self.set_positions.get(set_code, 0):
                        stored = self._newer_in_database(db_card[0], stored)
                        same_rules = stored[-1] == db_card[2]
                firsts.append((name, None if same_rules else stored, db_card))
            found = stored_printings.get((set_ids.get(set_code), number)) if stored_printings else None  # type: ignore[arg-type]  # a set read from the database has its id
            values = fields(printing)
            if found is not None and found[size] == name and found[4:size] == (*values, number_key):
                unchanged += 1
                continue
            printings.append((set_code, number, number_key, name, values))
            if found is not None:
                before.append(found[:size])
        return firsts, printings, before, unchanged

    def _newer_in_database(self, card_id: int, stored: tuple[Any, ...]) -> tuple[Any, ...]:
        """A card the database prints in a newer set than this import: its words stay the
        database's, its houses and ids are this import's (the check unified them with the
        database's), its Traditional name the database's or this import's."""
        values = full_card(self, card_id)
        row = dict(zip(STORED_CARD, stored, strict=True))
        extra = dict(values.get("extra") or {})
        for key, value in (row.get("extra") or {}).items():
            if key == "ids" or key not in extra:
                extra[key] = value
        values["faction"], values["extra"] = row["faction"], extra
        return card_values(values)

    def existing_cards(self, names: list[str], columns: tuple[str, ...]) -> Iterator[Any]:
        """The game's cards among ``names`` (rows of ``columns``)."""
        if self.game_row is None:
            return
        table = table_of(Card)
        for start in range(0, len(names), BATCH):
            yield from select_in(
                self.session, table, columns, {"game_id": self.game_row.id}, "name", names[start : start + BATCH]
            )

    def existing_printings(
        self, keys: dict[str, list[str]], columns: tuple[str, ...], *, card_columns: tuple[str, ...] = ()
    ) -> Iterator[Any]:
        """The database printings at ``{set code: [numbers]}`` (rows of ``columns``, followed by
        the ``card_columns`` of the printing's card).

        A chunk names most of a set's numbers, so a set not much larger than what the chunk
        names is read whole by its id (one short statement, compiled once) and filtered here:
        IN lists of 2,000 numbers, expanded and compiled for every chunk, cost a re-import of
        100,000 printings ~1.7 s. A large set is still looked up by its numbers (bounded reads)."""
        table = table_of(Printing)
        card = table_of(Card)
        wanted_columns: list[Any] = [table.c[c] for c in columns] + [card.c[c] for c in card_columns]
        at = len(wanted_columns)  # the number, when read for the filter below
        selected = select(*wanted_columns, *[table.c.number])
        by_numbers = select(*wanted_columns)
        if card_columns:
            selected = selected.join(card, card.c.id == table.c.card_id)
            by_numbers = by_numbers.join(card, card.c.id == table.c.card_id)
        for set_code, numbers in keys.items():
            set_id = self.db_sets[set_code].id
            size = self.db_set_sizes.get(set_id, 0) if set_id is not None else 0
            if size <= max(WHOLE_SET_FACTOR * len(numbers), WHOLE_SET):
                wanted = set(numbers)
                for row in self.session.execute(selected.where(table.c.set_id == set_id)).all():
                    if row[at] in wanted:
                        yield row
                continue
            for start in range(0, len(numbers), BATCH):
                yield from self.session.execute(
                    by_numbers.where(table.c.set_id == set_id, table.c.number.in_(numbers[start : start + BATCH]))
                )

    def stored_at(self, places: set[int]) -> dict[int, dict[str, Any]]:
        """The card values of the rows at ``places``, read again from their files."""
        found: dict[int, dict[str, Any]] = {}
        if not places:
            return found
        for row in self.source.iter_rows():
            place = self.place(row)
            if place in places:
                _set, _number, parsed, _errors = self.parsed(row)
                if parsed is not None:
                    found[place] = card_columns(parsed.card)
                if len(found) == len(places):
                    break
        return found

    def _describe_contradictions(self, pending: list[tuple[Row, str, dict[str, Any], int]]) -> None:
        firsts = self.stored_at({first for _row, _name, _stored, first in pending})
        for row, name, stored, first in pending:
            first_values = firsts[first]
            differences = differing_fields(first_values, stored)
            if differences:
                first_file, first_line = self.where(first)
                self.problem(
                    row.file,
                    row.line,
                    column_word(differences[0], self.game),
                    f"同名卡「{name}」的规则字段与 {first_file}:{first_line} 不一致："
                    f"{describe(differences, first_values, stored, self.game)}",
                    f"card {name!r} contradicts {first_file}:{first_line} in {', '.join(differences)}",
                )

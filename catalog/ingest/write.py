"""The write half of an import: a checked :class:`~catalog.ingest.validate.Plan` written in bulk
(sets, templates, cards and their search rows, printings, formats and ban lists), and the report
of what changed. Runs only when the whole import checked clean."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import JSON, bindparam, delete, exists, func, literal_column, update
from sqlmodel import col, select

from catalog.ingest.bulk import (
    BATCH,
    batched,
    bulk_insert,
    drop_secondary_indexes,
    insert_tuples,
    reserve_ids,
    to_json,
)
from catalog.ingest.cardvalues import PRINTING_FIELDS, RULES_FIELDS, STORED_CARD
from catalog.ingest.searchrows import SEARCH_KEYS, SEARCH_ROW, search_keys, search_row, set_count
from catalog.ingest.sources import Problem
from catalog.ingest.validate import (
    PRINTING_VALUES,
    STORED_PRINTING,
    FirstRow,
    Plan,
    PrintingRow,
)
from catalog.models import (
    BanEntry,
    Card,
    CardKeyword,
    CardSearch,
    CardSet,
    CardText,
    CardTrait,
    Format,
    Game,
    PackTemplate,
    Printing,
    table_of,
)
from catalog.models.catalogue import new_catalogue_version
from catalog.text import fold

SET_FIELDS = (
    "name",
    "code_key",
    "series",
    "kind",
    "release",
    "description",
    "position",
    "sample",
    "source",
    "pack_template_id",
)
BULK_THRESHOLD = 20_000  # new cards above which indexes are rebuilt rather than updated
NEW_PRINTING = ("set_id", "number", "card_id", "number_key", *PRINTING_VALUES)  # a printing inserted


@dataclass
class Tally:
    added: int = 0
    updated: int = 0
    unchanged: int = 0


@dataclass
class ImportReport:
    games: list[str] = field(default_factory=list)
    sets: Tally = field(default_factory=Tally)
    cards: Tally = field(default_factory=Tally)
    printings: Tally = field(default_factory=Tally)
    formats: Tally = field(default_factory=Tally)
    cards_removed: int = 0
    rows: int = 0
    # words of an open vocabulary the data brought: (game, column, word) → rows using it
    new_words: dict[tuple[str, str, str], int] = field(default_factory=dict)
    errata: int = 0  # cards a reprint words otherwise (the newest set's words win)
    notes: list[Problem] = field(default_factory=list)  # read otherwise than written, e.g. a refused name

    @property
    def changed(self) -> bool:
        return any(t.added or t.updated for t in (self.sets, self.cards, self.printings, self.formats)) or bool(
            self.cards_removed
        )


NEW_CARD = ("id", "game_id", "name", "name_en", *STORED_CARD, *SEARCH_KEYS)  # a card inserted
_AT = {key: i for i, key in enumerate(STORED_CARD)}
_TEXT_AT, _ATTRIBUTES_AT, _TRAITS_AT, _KEYWORDS_AT = _AT["text"], _AT["attributes"], _AT["traits"], _AT["keywords"]
_JSON_AT = [_AT[c.name] for c in table_of(Card).columns if isinstance(c.type, JSON) and c.name in _AT]
_TEXT_KEY_AT = SEARCH_KEYS.index("text_key")


# an open vocabulary's column → where its new words are kept in Game.vocabulary
_NEW_WORD_LISTS = {"house": "houses", "type": "types"}
_NEW_WORD_SEQUENCES = {"keywords": "keywords", "rarity": "new_rarities"}


def _with_new_words(vocabulary: dict[str, Any], new_words: dict[tuple[str, str], int]) -> dict[str, Any]:
    """The game's stored words plus the new ones (searched from now on, and known to the next
    import, which then reports them no more)."""
    merged = dict(vocabulary)
    for column, word in new_words:
        if column in _NEW_WORD_LISTS:
            key = _NEW_WORD_LISTS[column]
            words = dict(merged.get(key) or {})
            words.setdefault(word, [])
            merged[key] = words
        elif column in _NEW_WORD_SEQUENCES:
            key = _NEW_WORD_SEQUENCES[column]
            listed = list(merged.get(key) or [])
            if word not in listed:
                listed.append(word)
            merged[key] = listed
    return merged


class PlanWriter(Plan):
    """A plan that writes itself once checked (``plan().write(report)``)."""

    def write(self, report: ImportReport) -> None:
        session, game = self.session, self.game
        if self.game_row is None:
            self.game_row = Game(slug=game.slug, name=game.name, vocabulary=dict(self.source.vocabulary))
            session.add(self.game_row)
            session.flush()
        else:
            self.game_row.catalogue_version = new_catalogue_version()  # cached card pools are stale now
            if (self.game_row.vocabulary or {}) != self.source.vocabulary:
                # the manifest's [vocabulary] (a new dict: JSON columns track assignment only)
                self.game_row.vocabulary = dict(self.source.vocabulary)
        if self.new_words:
            self.game_row.vocabulary = _with_new_words(self.game_row.vocabulary or {}, self.new_words)
        for (column, word), count in self.new_words.items():
            report.new_words[(game.slug, column, word)] = report.new_words.get((game.slug, column, word), 0) + count
        report.errata += len(self.errata)
        report.notes.extend(self.notes)
        game_id = self.game_row.id
        assert game_id is not None

        templates = {t.name: t for t in session.scalars(select(PackTemplate).where(PackTemplate.game_id == game_id))}
        for template_spec in self.source.templates:
            template = templates.get(template_spec.name)
            if template is None:
                template = PackTemplate(game_id=game_id, name=template_spec.name)
                session.add(template)
                templates[template_spec.name] = template
            template.packs_per_box = template_spec.packs_per_box
            template.slots = template_spec.slots
        session.flush()

        for spec in self.source.sets:
            values: dict[str, Any] = {
                "name": spec.name,
                "code_key": fold(spec.code),
                "series": spec.series,
                "kind": spec.kind,
                "release": spec.release,
                "description": spec.description,
                "position": spec.position,
                "sample": spec.sample if spec.sample is not None else self.source.sample,
                "source": spec.source if spec.source is not None else self.source.provenance,
                "pack_template_id": templates[spec.pack].id if spec.pack else None,
            }
            existing = self.db_sets.get(spec.code)
            if existing is None:
                new_set = CardSet(game_id=game_id, code=spec.code, **values)
                session.add(new_set)
                self.db_sets[spec.code] = new_set
                report.sets.added += 1
            elif any(getattr(existing, k) != v for k, v in values.items()):
                for key, value in values.items():
                    setattr(existing, key, value)
                report.sets.updated += 1
            else:
                report.sets.unchanged += 1
        session.flush()

        # why the type: ignore below: a set read or flushed has its id
        self.set_ids: dict[str, int] = {code: card_set.id for code, card_set in self.db_sets.items()}  # type: ignore[misc]
        bulk = len(self.cards) - self.db_card_count > BULK_THRESHOLD
        dropped = drop_secondary_indexes(self.session) if bulk else []
        self.db_card_ids: set[int] = set()  # this import's cards that were in the database before
        self.affected: set[int] = set()  # existing cards whose printing summary must be recomputed
        done = 0
        for firsts, printings, stored_printings, unchanged in self.checked_chunks():
            self._write_cards(game_id, firsts, report)
            self._write_printings(printings, stored_printings, report)
            report.printings.unchanged += unchanged
            done += len(printings) + unchanged
            if self.progress:
                self.progress("写入", done, self.printing_rows)
        for index in dropped:
            index.create(self.session.connection())
        if bulk and self.session.get_bind().dialect.name == "postgresql":
            # Fresh statistics for the planner now, not when autovacuum next looks: without them
            # PostgreSQL guessed a third of the cards for every substring test and the width of
            # a sort key from its declared length (the search benchmark ran 1.5× slower).
            for model in (Card, Printing, CardTrait, CardKeyword, CardSearch, CardText):
                self.session.connection().exec_driver_sql(f'ANALYZE "{table_of(model).name}"')
        self._refresh_summaries(self.affected)
        self._write_formats(game_id, report)
        report.cards_removed += self._remove_orphans(game_id)

    def _write_cards(self, game_id: int, firsts: list[FirstRow], report: ImportReport) -> None:
        """The cards one chunk prints first in this import: inserted when new, rewritten when
        their rules or English name changed (with their trait, keyword, search and text rows).
        Each comes with the database's row of it, as the check read it, and its stored values
        unless the database holds the same rules."""
        table = table_of(Card)
        if not firsts:
            return
        fresh: list[tuple[str, str, tuple[Any, ...], tuple[Any, ...]]] = []  # new: name, name_en, values, keys
        changed: list[dict[str, Any]] = []
        renamed: dict[int, tuple[str, str]] = {}  # same rules, another English name: id → (name, name_en)
        for name, values, known in firsts:
            name_en = self.name_en.get(name, known[1] if known else "")
            if values is None:
                # the database holds these rules (the check compared the hashes)
                assert known is not None
                self.cards[name] = known[0]
                self.db_card_ids.add(known[0])
                if known[1] != name_en:
                    renamed[known[0]] = (name, name_en)  # an English name from a later row
                else:
                    report.cards.unchanged += 1
                continue
            if known is None:
                found_keys = search_keys(name, values[_TEXT_AT], values[_ATTRIBUTES_AT], self.game)
                fresh.append((name, name_en, values, tuple(found_keys.values())))
            else:
                stored = dict(zip(STORED_CARD, values, strict=True))
                self.cards[name] = known[0]
                self.db_card_ids.add(known[0])
                if known[2] != stored["rules_hash"] or known[1] != name_en:
                    changed.append(
                        {
                            "_id": known[0],
                            "name": name,
                            "name_en": name_en,
                            **stored,
                            **search_keys(name, stored["text"], stored["attributes"], self.game),
                        }
                    )
                else:
                    report.cards.unchanged += 1
        if renamed:
            # rewritten like a changed card, from the values the database holds for its rules
            columns_read = [table.c[key] for key in ("id", *RULES_FIELDS, "rules_hash")]
            for found in self.session.execute(select(*columns_read).where(table.c.id.in_(sorted(renamed)))).mappings():
                stored = {key: found[key] for key in (*RULES_FIELDS, "rules_hash")}
                name, name_en = renamed[found["id"]]
                changed.append(
                    {
                        "_id": found["id"],
                        "name": name,
                        "name_en": name_en,
                        **stored,
                        **search_keys(name, stored["text"], stored["attributes"], self.game),
                    }
                )
        # The new cards' ids, reserved before the insert rather than read back by name after it.
        # Their rows are built as tuples (NEW_CARD), JSON columns encoded here.
        touched: list[tuple[int, str, str, tuple[Any, ...], tuple[Any, ...], tuple[int, int]]] = []
        card_rows: list[tuple[Any, ...]] = []
        for card_id, (name, name_en, values, keys) in zip(
            reserve_ids(self.session, table, len(fresh)), fresh, strict=True
        ):
            # a new card has every printing in this import: its summary is known from the check
            _digest, _place, mask, sets = self.cards[name]
            self.cards[name] = card_id
            touched.append((card_id, name, name_en, values, keys, (mask, set_count(sets))))
            listed = list(values)
            for i in _JSON_AT:
                if listed[i] is not None:
                    listed[i] = to_json(listed[i])
            card_rows.append((card_id, game_id, name, name_en, *listed, *keys))
        insert_tuples(self.session, table, NEW_CARD, card_rows)
        if changed:
            columns: dict[str, Any] = {key: bindparam(key) for key in changed[0] if key != "_id"}
            statement = update(table).where(table.c.id == bindparam("_id")).values(columns)
            self.session.connection().execute(statement, changed)
            changed_ids = [row["_id"] for row in changed]
            self.session.execute(delete(CardTrait).where(col(CardTrait.card_id).in_(changed_ids)))
            self.session.execute(delete(CardKeyword).where(col(CardKeyword.card_id).in_(changed_ids)))
            self.session.execute(delete(CardSearch).where(col(CardSearch.card_id).in_(changed_ids)))
            self.session.execute(delete(CardText).where(col(CardText.card_id).in_(changed_ids)))
            self.affected.update(changed_ids)
        report.cards.added += len(card_rows)
        report.cards.updated += len(changed)
        # a changed card gets its summary from the database once the printings are written
        touched += [
            (
                row["_id"],
                row["name"],
                row["name_en"],
                tuple(row[key] for key in STORED_CARD),
                tuple(row[key] for key in SEARCH_KEYS),
                (0, 0),
            )
            for row in changed
        ]
        traits: list[tuple[Any, ...]] = []
        keywords: list[dict[str, Any]] = []
        searchable: list[tuple[Any, ...]] = []
        texts: list[tuple[Any, ...]] = []
        for card_id, name, name_en, values, keys, summary in touched:
            for trait in dict.fromkeys(values[_TRAITS_AT]):
                traits.append((card_id, trait, fold(trait)))
            for keyword in values[_KEYWORDS_AT]:
                keywords.append({"card_id": card_id, **keyword})
            searchable.append(search_row(card_id, game_id, name, name_en, values, keys, summary))
            texts.append((card_id, keys[_TEXT_KEY_AT]))
        insert_tuples(self.session, table_of(CardTrait), ("card_id", "trait", "trait_key"), traits)
        bulk_insert(self.session, table_of(CardKeyword), keywords)
        insert_tuples(self.session, table_of(CardSearch), SEARCH_ROW, searchable)
        insert_tuples(self.session, table_of(CardText), ("card_id", "text_key"), texts)

    def _refresh_summaries(self, card_ids: Iterable[int]) -> None:
        """Recompute the printing summaries of existing cards whose printings may have changed."""
        ids = sorted(set(card_ids))
        if not ids:
            return
        printing = table_of(Printing)
        search = table_of(CardSearch)
        rows: list[dict[str, Any]] = []
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            found = {
                card_id: (mask, count)
                for card_id, mask, count in self.session.execute(
                    select(
                        printing.c.card_id,
                        func.sum(literal_column("1").op("<<")(printing.c.rarity_rank).distinct()),
                        func.count(printing.c.set_id.distinct()),
                    )
                    .where(printing.c.card_id.in_(chunk))
                    .group_by(printing.c.card_id)
                )
            }
            rows += [{"_id": i, "mask": found.get(i, (0, 0))[0] or 0, "count": found.get(i, (0, 0))[1]} for i in chunk]
        statement = (
            update(search)
            .where(search.c.card_id == bindparam("_id"))
            .values(rarity_mask=bindparam("mask"), set_count=bindparam("count"))
        )
        batched(self.progress, "更新印刷摘要", lambda chunk: self.session.connection().execute(statement, chunk), rows)

    def _write_printings(self, rows: list[PrintingRow], stored: list[tuple[Any, ...]], report: ImportReport) -> None:
        """The chunk's new and changed printings: inserted, or updated; ``stored``: the
        database's rows of those it rewrites (:data:`STORED_PRINTING`), as the check read them."""
        table = table_of(Printing)
        existing: dict[tuple[int, str], dict[str, Any]] = {}
        for found in stored:
            values = dict(zip(STORED_PRINTING, found, strict=True))
            existing[(values["set_id"], values["number"])] = values
        new_rows: list[tuple[Any, ...]] = []  # NEW_PRINTING columns
        changed: list[dict[str, Any]] = []
        set_ids = self.set_ids
        for set_code, number, number_key, name, printing in rows:
            set_id = set_ids[set_code]
            card_id = self.cards[name]
            before = existing.get((set_id, number))
            if before is None:
                new_rows.append((set_id, number, card_id, number_key, *printing))
                if card_id in self.db_card_ids:
                    self.affected.add(card_id)  # an existing card gained a printing
                continue
            values = {"card_id": card_id, "number_key": number_key, **dict(zip(PRINTING_VALUES, printing, strict=True))}
            if any(before[k] != values[k] for k in PRINTING_FIELDS):
                changed.append({"_id": before["id"], **values})
                self.affected.add(before["card_id"])  # the card it belonged to before
                if card_id in self.db_card_ids:
                    self.affected.add(card_id)
            else:
                report.printings.unchanged += 1
        insert_tuples(self.session, table, NEW_PRINTING, new_rows)
        if changed:
            columns_: dict[str, Any] = {key: bindparam(key) for key in changed[0] if key != "_id"}
            statement = update(table).where(table.c.id == bindparam("_id")).values(columns_)
            self.session.connection().execute(statement, changed)
        report.printings.added += len(new_rows)
        report.printings.updated += len(changed)

    def _write_formats(self, game_id: int, report: ImportReport) -> None:
        session = self.session
        if not self.source.formats:
            return
        existing = {f.code: f for f in session.scalars(select(Format).where(Format.game_id == game_id))}
        # every ban-list name was checked to be one of the game's cards, as written or folded
        table = table_of(Card)
        wanted = sorted({fold(name) for spec in self.source.formats for name in spec.banlist})
        card_ids: dict[str, int] = {}
        for start in range(0, len(wanted), BATCH):
            query = (
                select(table.c.id, table.c.name_key)
                .where(table.c.game_id == game_id, table.c.name_key.in_(wanted[start : start + BATCH]))
                .order_by(table.c.id)
            )
            card_ids.update({name_key: card_id for card_id, name_key in session.execute(query)})
        for spec in self.source.formats:
            bans = {card_ids[fold(name)]: limit for name, limit in spec.banlist.items()}
            fmt = existing.get(spec.code)
            values: dict[str, Any] = {
                "name": spec.name,
                "rules": spec.rules,
                "legal_sets": spec.legal_sets,
                "params": spec.params,
            }
            if fmt is None:
                fmt = Format(game_id=game_id, code=spec.code, **values)
                session.add(fmt)
                session.flush()
                report.formats.added += 1
                old_bans: dict[int, int] = {}
            else:
                old_bans = {
                    b.card_id: b.limit for b in session.scalars(select(BanEntry).where(BanEntry.format_id == fmt.id))
                }
                if any(getattr(fmt, k) != v for k, v in values.items()) or old_bans != bans:
                    for key, value in values.items():
                        setattr(fmt, key, value)
                    report.formats.updated += 1
                else:
                    report.formats.unchanged += 1
            if old_bans != bans:
                session.execute(delete(BanEntry).where(col(BanEntry.format_id) == fmt.id))
                for card_id, limit in bans.items():
                    # why the type: ignore below: the format was flushed: it has its id
                    session.add(BanEntry(format_id=fmt.id, card_id=card_id, limit=limit))  # type: ignore[arg-type]
        session.flush()

    def _remove_orphans(self, game_id: int) -> int:
        """Cards that lost their last printing (renamed in their set) and no ban list or want
        list names (a want list keeps the card it names, even when no set prints it now)."""
        from catalog.models import WantItem

        table = table_of(Card)
        # NOT EXISTS, an anti-join, rather than NOT IN: PostgreSQL hashes a NOT IN list only
        # while it fits in work_mem, and past that tests every card against every printing (a
        # million printings: the import never finished); NOT EXISTS stays linear. Same answer:
        # the card_id columns are NOT NULL.
        orphans = select(table.c.id).where(
            table.c.game_id == game_id,
            *(
                ~exists().where(other.c.card_id == table.c.id)
                for other in (table_of(Printing), table_of(BanEntry), table_of(WantItem))
            ),
        )
        ids = list(self.session.scalars(orphans))
        if ids:
            self.session.execute(delete(CardTrait).where(col(CardTrait.card_id).in_(ids)))
            self.session.execute(delete(CardKeyword).where(col(CardKeyword.card_id).in_(ids)))
            self.session.execute(delete(CardSearch).where(col(CardSearch.card_id).in_(ids)))
            self.session.execute(delete(Card).where(col(Card.id).in_(ids)))
        return len(ids)

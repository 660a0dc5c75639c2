"""The write half of an import: a checked :class:`~catalog.ingest.validate.Plan` written in bulk
(sets, templates, cards and their search rows, printings, formats and ban lists), and the report
of what changed. Runs only when the whole import checked clean."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, delete, exists, func, literal_column, update
from sqlmodel import col, select

from catalog.games import GameModule
from catalog.ingest.bulk import BATCH, batched, bulk_insert, drop_secondary_indexes
from catalog.ingest.validate import PRINTING_FIELDS, Plan
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
from catalog.text import fold, pinyin_keys, search_keys_text

SET_FIELDS = ("name", "code_key", "series", "kind", "release", "description", "position", "sample", "pack_template_id")
BULK_THRESHOLD = 20_000  # new cards above which indexes are rebuilt rather than updated


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

    @property
    def changed(self) -> bool:
        return any(t.added or t.updated for t in (self.sets, self.cards, self.printings, self.formats)) or bool(
            self.cards_removed
        )


def search_keys(name: str, text: str, attributes: str, game: GameModule) -> dict[str, Any]:
    """The keys search matches on, computed once here rather than at query time."""
    pinyin, initials = pinyin_keys(name)
    return {
        "name_key": fold(name),
        "pinyin": pinyin,
        "initials": initials,
        "text_key": fold(text),
        "attr_mask": game.attributes.mask(attributes) if attributes else 0,
    }


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
                "sample": self.source.sample,
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

        bulk = len(self.cards) - len(self.db_cards) > BULK_THRESHOLD
        dropped = drop_secondary_indexes(self.session) if bulk else []
        card_ids = self._write_cards(game_id, report)
        self._write_printings(card_ids, report)
        for index in dropped:
            index.create(self.session.connection())
        if bulk and self.session.get_bind().dialect.name == "postgresql":
            # Fresh statistics for the planner now, not when autovacuum next looks: without them
            # PostgreSQL guessed a third of the cards for every substring test and the width of
            # a sort key from its declared length (the search benchmark ran 1.5× slower).
            for model in (Card, Printing, CardTrait, CardKeyword, CardSearch, CardText):
                self.session.connection().exec_driver_sql(f'ANALYZE "{table_of(model).name}"')
        self._write_formats(game_id, report)
        report.cards_removed += self._remove_orphans(game_id)

    def _write_cards(self, game_id: int, report: ImportReport) -> dict[str, int]:
        table = table_of(Card)
        new_rows: list[dict[str, Any]] = []
        changed: list[dict[str, Any]] = []
        for name, (stored, _row) in self.cards.items():
            existing = self.db_cards.get(name)
            name_en = self.name_en.get(name, existing["name_en"] if existing else "")
            if existing is None:
                new_rows.append(
                    {
                        "game_id": game_id,
                        "name": name,
                        "name_en": name_en,
                        **stored,
                        **search_keys(name, stored["text"], stored["attributes"], self.game),
                    }
                )
            elif existing["rules_hash"] != stored["rules_hash"] or existing["name_en"] != name_en:
                changed.append(
                    {
                        "_id": existing["id"],
                        "name": name,
                        "name_en": name_en,
                        **stored,
                        **search_keys(name, stored["text"], stored["attributes"], self.game),
                    }
                )
            else:
                report.cards.unchanged += 1
        batched(self.progress, "写入卡牌", lambda chunk: bulk_insert(self.session, table, chunk), new_rows)
        if changed:
            columns: dict[str, Any] = {key: bindparam(key) for key in changed[0] if key != "_id"}
            statement = update(table).where(table.c.id == bindparam("_id")).values(columns)
            batched(
                self.progress, "更新卡牌", lambda chunk: self.session.connection().execute(statement, chunk), changed
            )
        report.cards.added += len(new_rows)
        report.cards.updated += len(changed)

        ids = {
            name: card_id
            for card_id, name in self.session.execute(
                select(table.c.id, table.c.name).where(table.c.game_id == game_id)
            )
        }
        touched = [ids[row["name"]] for row in new_rows] + [row["_id"] for row in changed]
        if changed:
            changed_ids = [row["_id"] for row in changed]
            for start in range(0, len(changed_ids), BATCH):
                chunk = changed_ids[start : start + BATCH]
                self.session.execute(delete(CardTrait).where(col(CardTrait.card_id).in_(chunk)))
                self.session.execute(delete(CardKeyword).where(col(CardKeyword.card_id).in_(chunk)))
                self.session.execute(delete(CardSearch).where(col(CardSearch.card_id).in_(chunk)))
                self.session.execute(delete(CardText).where(col(CardText.card_id).in_(chunk)))
        by_id = {ids[name]: stored for name, (stored, _row) in self.cards.items()}
        traits: list[dict[str, Any]] = []
        keywords: list[dict[str, Any]] = []
        for card_id in touched:
            stored = by_id[card_id]
            for trait in dict.fromkeys(stored["traits"]):
                traits.append({"card_id": card_id, "trait": trait, "trait_key": fold(trait)})
            for keyword in stored["keywords"]:
                keywords.append({"card_id": card_id, **keyword})
        del by_id
        batched(self.progress, "写入特征", lambda chunk: bulk_insert(self.session, table_of(CardTrait), chunk), traits)
        batched(
            self.progress, "写入关键字", lambda chunk: bulk_insert(self.session, table_of(CardKeyword), chunk), keywords
        )
        del traits, keywords  # each kind of row is built, written and let go in turn (memory)
        # New cards have every printing in this import, so their summaries are known now;
        # changed and other existing cards get theirs from the database after the printings.
        summaries = self._new_card_summaries()
        searchable = [self._search_row(ids[row["name"]], game_id, row, summaries.get(row["name"])) for row in new_rows]
        searchable += [self._search_row(row["_id"], game_id, row, None) for row in changed]
        del summaries
        batched(
            self.progress,
            "写入搜索索引",
            lambda chunk: bulk_insert(self.session, table_of(CardSearch), chunk),
            searchable,
        )
        del searchable
        texts = [{"card_id": ids[row["name"]], "text_key": row["text_key"]} for row in new_rows]
        texts += [{"card_id": row["_id"], "text_key": row["text_key"]} for row in changed]
        batched(
            self.progress, "写入文字索引", lambda chunk: bulk_insert(self.session, table_of(CardText), chunk), texts
        )
        del texts
        self.changed_card_ids = [row["_id"] for row in changed]
        return ids

    def _new_card_summaries(self) -> dict[str, tuple[int, int]]:
        """name → (rarity mask, set count) from this import's printings."""
        masks: dict[str, int] = {}
        sets: dict[str, set[str]] = {}
        for set_code, _number, name, fields, _row in self.printings:
            masks[name] = masks.get(name, 0) | (1 << fields["rarity_rank"])
            sets.setdefault(name, set()).add(set_code)
        return {name: (mask, len(sets[name])) for name, mask in masks.items()}

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

    @staticmethod
    def _search_row(card_id: int, game_id: int, row: dict[str, Any], summary: tuple[int, int] | None) -> dict[str, Any]:
        """The card's row of ``card_search`` (see :class:`CardSearch`)."""
        mask, set_count = summary or (0, 0)
        return {
            "card_id": card_id,
            "game_id": game_id,
            "name": row["name"],
            "sort_key": row["pinyin"],
            "keys": search_keys_text(row["name_key"], row["pinyin"], row["initials"], row["name_en"]),
            "type": row["type"],
            "subtype_key": fold(row["subtype"]),
            "attr_mask": row["attr_mask"],
            "faction_key": fold(row["faction"]),
            "cost_total": row["cost_total"],
            "attack": row["attack"],
            "defense": row["defense"],
            "level": row["level"],
            "rarity_mask": mask,
            "set_count": set_count,
        }

    def _write_printings(self, card_ids: dict[str, int], report: ImportReport) -> None:
        table = table_of(Printing)
        new_rows: list[dict[str, Any]] = []
        changed: list[dict[str, Any]] = []
        previous_cards: list[int] = []  # the card a changed printing belonged to before
        for set_code, number, name, fields, _row in self.printings:
            set_id = self.db_sets[set_code].id
            values = {"card_id": card_ids[name], "number_key": fold(number), **fields}
            # why the type: ignore below: a set read or flushed has its id
            existing = self.db_printings.get((set_id, number))  # type: ignore[arg-type]
            if existing is None:
                new_rows.append({"set_id": set_id, "number": number, **values})
            elif any(existing[k] != values[k] for k in PRINTING_FIELDS):
                changed.append({"_id": existing["id"], **values})
                previous_cards.append(existing["card_id"])
            else:
                report.printings.unchanged += 1
        batched(self.progress, "写入印刷", lambda chunk: bulk_insert(self.session, table, chunk), new_rows)
        if changed:
            columns: dict[str, Any] = {key: bindparam(key) for key in changed[0] if key != "_id"}
            statement = update(table).where(table.c.id == bindparam("_id")).values(columns)
            batched(
                self.progress, "更新印刷", lambda chunk: self.session.connection().execute(statement, chunk), changed
            )
        report.printings.added += len(new_rows)
        report.printings.updated += len(changed)
        # Existing cards that gained, lost or changed a printing (a new card's summary is
        # already right), plus the cards whose rules changed (their search row was rewritten).
        new_names = {name for name in self.cards if name not in self.db_cards}
        old_ids = {card_id for name, card_id in card_ids.items() if name not in new_names}
        affected = [row["card_id"] for row in new_rows if row["card_id"] in old_ids]
        affected += [row["card_id"] for row in changed if row["card_id"] in old_ids]
        affected += previous_cards
        self._refresh_summaries([*affected, *self.changed_card_ids])

    def _write_formats(self, game_id: int, report: ImportReport) -> None:
        session = self.session
        if not self.source.formats:
            return
        existing = {f.code: f for f in session.scalars(select(Format).where(Format.game_id == game_id))}
        card_ids = {
            fold(name): card_id
            for card_id, name in session.execute(
                select(table_of(Card).c.id, table_of(Card).c.name).where(table_of(Card).c.game_id == game_id)
            )
        }
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

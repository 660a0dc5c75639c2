"""The rows of the collection table (issue 17): built in Python, their printing's part kept.

Rendered through macros, a row cost ~1.5 ms of Jinja (two links, a rarity badge, grade labels,
four forms each with its hidden fields and translated labels): 75 ms for a page of 50. Now the
template only fills in values built here. What a row shows of its printing — the set and card
links, the card data's language, the rarity badge, the labels naming the card — is the same on
every page until the game's next import, so it is kept per (database, script root, language,
game, the game's ``catalogue_version``, printing), as the search tiles are (webapp/cards/tiles.py;
the version is read in the request's transaction). The rest is per item and per page.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from flask import get_template_attribute, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup, escape

from catalog.collection.listing import ItemRow, Page
from catalog.games import GAMES
from webapp.db import get_engine

# Printings kept per process: a face is ~1 kB, so at most ~8 MB.
FACE_CACHE_SIZE = 8192
_faces: OrderedDict[Hashable, Face] = OrderedDict()
_faces_lock = threading.Lock()

FIELDS = (
    '<input type="hidden" name="printing_id" value="%s">\n'
    '<input type="hidden" name="condition" value="%s">\n'
    '<input type="hidden" name="language" value="%s">\n'
    '<input type="hidden" name="finish" value="%s">'
)


@dataclass(frozen=True)
class Face:
    """What a row shows of its printing."""

    set_url: str
    card_url: str
    lang: str  # the card data's language tag
    rarity: Markup  # the rarity badge
    remove_title: Markup  # the labels naming the card
    add_title: Markup
    trade_label: Markup
    note_label: Markup


@dataclass(frozen=True)
class RowView:
    item: ItemRow
    face: Face
    language: str
    finish: str
    fields: Markup  # the hidden fields naming the item (printing and grade), in each of its forms


def cache_clear() -> None:
    with _faces_lock:
        _faces.clear()


def markup(translated: str) -> Markup:
    """A translation as the templates' ``_()`` gives it (markup, formatted): ``markup(_("…"))``,
    the ``_`` written out so that the messages are extracted."""
    return Markup(translated) % {}


def _render_face(item: ItemRow, labels: dict[str, str]) -> Face:
    module = GAMES[item.game]
    badge = get_template_attribute("_macros.html", "rarity_badge")
    name = escape(item.name)
    return Face(
        set_url=url_for("cards.set_detail", game_slug=item.game, code=item.set),
        card_url=url_for("cards.card_detail", game_slug=item.game, name=item.name),
        lang="zh-Hant" if module.script == "hant" else "zh-Hans",
        rarity=Markup(badge(module, item.rarity)),
        # As the templates' _(…, name=…) fills them: the name escaped into the markup.
        remove_title=Markup(labels["remove"] % {"name": name}),
        add_title=Markup(labels["add"] % {"name": name}),
        trade_label=Markup(labels["trade"] % {"name": name}),
        note_label=Markup(labels["note"] % {"name": name}),
    )


def row_views(page: Page, grade_label: Callable[[str, str], str]) -> list[RowView]:
    """The page's rows: each printing's kept face (built now when missing) and the item's own
    grade labels and hidden fields. ``grade_label(value, kind)`` names a grade value."""
    items = page.items
    if not items:
        return []
    versions = page.catalogue_versions  # read in the page's transaction
    common = (get_engine().url.render_as_string(hide_password=False), request.script_root, str(get_locale()))
    labels: dict[str, str] = {}
    grades: dict[tuple[str, str], str] = {}
    rows = []
    for item in items:
        key = (*common, item.game, versions.get(item.game), item.printing_id)
        with _faces_lock:
            face = _faces.get(key)
            if face is not None:
                _faces.move_to_end(key)
        if face is None:
            if not labels:
                labels = {
                    "remove": _("减一张：%(name)s"),
                    "add": _("加一张：%(name)s"),
                    "trade": _("可交换数量：%(name)s"),
                    "note": _("备注：%(name)s"),
                }
            face = _render_face(item, labels)
            with _faces_lock:
                _faces[key] = face
                while len(_faces) > FACE_CACHE_SIZE:
                    _faces.popitem(last=False)
        grade = item.grade
        for value, kind in ((grade.language, "language"), (grade.finish, "finish")):
            if (value, kind) not in grades:
                grades[value, kind] = grade_label(value, kind)
        fields = FIELDS % (item.printing_id, escape(grade.condition), escape(grade.language), escape(grade.finish))
        rows.append(
            RowView(item, face, grades[grade.language, "language"], grades[grade.finish, "finish"], Markup(fields))
        )
    return rows


def row_text() -> dict[str, str]:
    """What every row of the table says alike: labels and the forms' targets."""
    return {
        "quantity": markup(_("数量")),
        "for_trade": markup(_("可交换")),
        "save": markup(_("保存")),
        "edit_note": markup(_("修改备注")),
        "add_note": markup(_("添加备注")),
        "change_item": url_for("collection.change_item"),
        "change_trade": url_for("collection.change_trade"),
        "change_note": url_for("collection.change_note"),
    }

"""The rows of the collection table: built in Python, their printing's part kept.

Rendered through macros (two links, a rarity badge, grade labels, four forms each with its
hidden fields and translated labels), the rows were most of a page's time; with the values built
here and filled in by the template, still half of a kept page's (about 45 expressions a row;
figures in CHANGELOG, Benchmarks). So each row is written out here too (:data:`ROW`,
:func:`table_rows`) and the template places the rows. What a row shows of its printing — the set and card
links, the card data's language, the rarity badge, the labels naming the card — is the same on
every page until the game's next import, so it is kept per (database, script root, language,
game, the game's ``catalogue_version``, printing), as the search tiles are (webapp/cards/tiles.py;
the version is read in the request's transaction). The rest is per item and per page.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from flask import get_template_attribute, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup, escape

from catalog.caching import LRU
from catalog.collection.listing import ItemRow, Page
from catalog.games import GAMES
from webapp.db import get_engine

# Printings kept per process: a face is ~1 kB, so at most ~8 MB.
FACE_CACHE_SIZE = 8192
_faces: LRU[Hashable, Face] = LRU(FACE_CACHE_SIZE)

FIELDS = (
    '<input type="hidden" name="printing_id" value="%s">\n'
    '<input type="hidden" name="condition" value="%s">\n'
    '<input type="hidden" name="language" value="%s">\n'
    '<input type="hidden" name="finish" value="%s">'
)


@dataclass(frozen=True)
class Face:
    """What a row shows of its printing."""

    set_url: Markup  # escaped, as every part of a face
    card_url: Markup
    lang: str  # the card data's language tag (a fixed word)
    rarity: Markup  # the rarity badge
    remove_title: Markup  # the labels naming the card
    add_title: Markup
    trade_label: Markup
    note_label: Markup
    # The printing's text as the row writes it, escaped once (:data:`ROW`).
    set_html: Markup
    number_html: Markup
    name_html: Markup


@dataclass(frozen=True)
class RowView:
    item: ItemRow
    face: Face
    language: str
    finish: str
    fields: Markup  # the hidden fields naming the item (printing and grade), in each of its forms


def cache_clear() -> None:
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
        set_url=escape(url_for("cards.set_detail", game_slug=item.game, code=item.set)),
        card_url=escape(url_for("cards.card_detail", game_slug=item.game, name=item.name)),
        lang="zh-Hant" if module.script == "hant" else "zh-Hans",
        rarity=Markup(badge(module, item.rarity)),
        # As the templates' _(…, name=…) fills them: the name escaped into the markup.
        remove_title=Markup(labels["remove"] % {"name": name}),
        add_title=Markup(labels["add"] % {"name": name}),
        trade_label=Markup(labels["trade"] % {"name": name}),
        note_label=Markup(labels["note"] % {"name": name}),
        set_html=escape(item.set),
        number_html=escape(item.number),
        name_html=name,
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
        face = _faces.get(key)
        if face is None:
            if not labels:
                labels = {
                    "remove": _("减一张：%(name)s"),
                    "add": _("加一张：%(name)s"),
                    "trade": _("可交换数量：%(name)s"),
                    "note": _("备注：%(name)s"),
                }
            face = _render_face(item, labels)
            _faces.put(key, face)
        grade = item.grade
        for value, kind in ((grade.language, "language"), (grade.finish, "finish")):
            if (value, kind) not in grades:
                grades[value, kind] = grade_label(value, kind)
        fields = FIELDS % (item.printing_id, escape(grade.condition), escape(grade.language), escape(grade.finish))
        rows.append(
            RowView(item, face, grades[grade.language, "language"], grades[grade.finish, "finish"], Markup(fields))
        )
    return rows


# One row of the table, filled with % by table_rows. Written out here rather than in the
# template: 50 rows of ~45 Jinja expressions each were half of a collection page's time, and
# Markup's own % (which escapes each value) cost as much (figures: CHANGELOG, Benchmarks). So
# this is plain text and EVERY value given to it is an int or text already escaped: markup (the
# face's parts, translations) or escape()'s result.
ROW = """
    <tr data-printing="%(printing_id)s">
      <td class="stack-lead"><a class="set-code" href="%(set_url)s">%(set)s</a></td>
      <td class="number stack-lead">%(number)s</td>
      <td lang="%(lang)s" class="stack-title"><a href="%(card_url)s">%(name)s</a></td>
      <td class="stack-lead">%(rarity)s</td>
      <td>%(condition)s</td>
      <td>%(language)s</td>
      <td>%(finish)s</td>
      <td class="num quantity-cell" data-label="%(quantity_label)s">
        <div class="quantity-controls">
          <form class="delta-form" method="post" action="%(change_item)s"
                data-live="#collection-rows #collection-totals">
  <input type="hidden" name="csrf_token" value="%(csrf)s">
  %(fields)s
  <input type="hidden" name="delta" value="-1">
  <input type="hidden" name="next" value="%(next)s">
  <button type="submit" class="delta" id="minus-%(index)s"
          title="%(remove_title)s">−1<span class="visually-hidden"> %(name)s</span></button>
</form>
          <span class="quantity">%(quantity)s</span>
          <form class="delta-form" method="post" action="%(change_item)s"
                data-live="#collection-rows #collection-totals">
  <input type="hidden" name="csrf_token" value="%(csrf)s">
  %(fields)s
  <input type="hidden" name="delta" value="1">
  <input type="hidden" name="next" value="%(next)s">
  <button type="submit" class="delta" id="plus-%(index)s"
          title="%(add_title)s">+1<span class="visually-hidden"> %(name)s</span></button>
</form>
        </div>
      </td>
      <td data-label="%(for_trade_label)s">
        <form class="trade-form" method="post" action="%(change_trade)s"
                data-live="#collection-rows #collection-totals">
          <input type="hidden" name="csrf_token" value="%(csrf)s">
          %(fields)s
          <input type="hidden" name="next" value="%(next)s">
          <label class="visually-hidden" for="trade-%(index)s">%(trade_label)s</label>
          <input id="trade-%(index)s" name="for_trade" type="number" min="0" max="%(quantity)s" inputmode="numeric"
                 value="%(for_trade)s" class="small-number">
          <button type="submit">%(save)s</button>
        </form>
      </td>
      <td class="note-cell stack-full">%(note)s
        <details>
          <summary>%(note_summary)s</summary>
          <form class="note-form" method="post" action="%(change_note)s"
                data-live="#collection-rows #collection-totals">
            <input type="hidden" name="csrf_token" value="%(csrf)s">
            %(fields)s
            <input type="hidden" name="next" value="%(next)s">
            <label class="visually-hidden" for="note-%(index)s">%(note_label)s</label>
            <input id="note-%(index)s" name="note" maxlength="500" value="%(note_text)s">
            <button type="submit">%(save)s</button>
          </form>
        </details>
      </td>
    </tr>"""
NOTE = '<span class="note">%s</span>'


def table_rows(rows: list[RowView], text: dict[str, str], csrf: str, next_url: str) -> Markup:
    """The table's rows as HTML: each :class:`RowView` in :data:`ROW`, with the labels and form
    targets every row shares (:func:`row_text`), the form token and the page to come back to."""
    shared = {
        "quantity_label": escape(text["quantity"]),
        "for_trade_label": escape(text["for_trade"]),
        "save": escape(text["save"]),
        "change_item": escape(text["change_item"]),
        "change_trade": escape(text["change_trade"]),
        "change_note": escape(text["change_note"]),
        "csrf": escape(csrf),
        "next": escape(next_url),
    }
    edit_note, add_note = escape(text["edit_note"]), escape(text["add_note"])
    labels: dict[str, Markup] = {}  # a grade's label, escaped once a page

    def label(value: str) -> Markup:
        found = labels.get(value)
        if found is None:
            found = labels[value] = escape(value)
        return found

    out = []
    for index, row in enumerate(rows, start=1):
        item, face = row.item, row.face
        values = {
            **shared,
            "printing_id": int(item.printing_id),
            "set_url": face.set_url,
            "set": face.set_html,
            "number": face.number_html,
            "lang": face.lang,
            "card_url": face.card_url,
            "name": face.name_html,
            "rarity": face.rarity,
            "condition": label(item.grade.condition),
            "language": label(row.language),
            "finish": label(row.finish),
            "fields": row.fields,
            "remove_title": face.remove_title,
            "add_title": face.add_title,
            "trade_label": face.trade_label,
            "note_label": face.note_label,
            "quantity": int(item.quantity),
            "for_trade": int(item.for_trade),
            "index": index,
            "note": NOTE % escape(item.note) if item.note else "",
            "note_summary": edit_note if item.note else add_note,
            "note_text": escape(item.note or ""),
        }
        out.append(ROW % values)
    return Markup("".join(out))


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

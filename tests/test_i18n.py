"""Every interface string is extracted by babel.cfg and has an English translation.

The msgids are the Simplified Chinese strings themselves. Adding ``_('新文字')`` to a template
or a view without translating it in ``webapp/translations/en/LC_MESSAGES/messages.po`` fails
here. To update the catalogue::

    pybabel extract -F babel.cfg -o /tmp/messages.pot --add-location=file --sort-by-file .
    pybabel update -i /tmp/messages.pot -d webapp/translations --no-fuzzy-matching --ignore-obsolete
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from babel.util import pathmatch

ROOT = Path(__file__).resolve().parent.parent
BABEL_CFG = ROOT / "babel.cfg"
ENGLISH_PO = ROOT / "webapp" / "translations" / "en" / "LC_MESSAGES" / "messages.po"
TEMPLATES = ROOT / "webapp"


def _mapping() -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    with BABEL_CFG.open(encoding="utf-8") as source:
        return parse_mapping_cfg(source)


def extract() -> Catalog:
    """The messages babel.cfg extracts from the source tree (what ``pybabel extract`` sees)."""
    method_map, options_map = _mapping()
    catalog = Catalog(locale=None)
    for filename, lineno, message, comments, context in extract_from_dir(str(ROOT), method_map, options_map):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read_english() -> Catalog:
    with ENGLISH_PO.open("rb") as source:
        return read_po(source, locale="en")


def _key(message) -> tuple[str | None, str]:
    msgid = message.id[0] if isinstance(message.id, tuple) else message.id
    return message.context, msgid


def problems(extracted: Catalog, translated: Catalog) -> list[str]:
    """What keeps ``translated`` from covering ``extracted`` exactly, one line per problem."""
    found: list[str] = []
    if translated.fuzzy:
        found.append("the catalogue header is marked fuzzy")
    wanted = {_key(m) for m in extracted if m.id}
    have = {_key(m): m for m in translated if m.id}
    for key in sorted(wanted - have.keys(), key=str):
        found.append(f"untranslated (missing from the .po): {key}")
    for key in sorted(have.keys() - wanted, key=str):
        found.append(f"obsolete (no longer in the source): {key}")
    for key in sorted(translated.obsolete, key=str):
        found.append(f"obsolete #~ entry: {key}")
    for key, message in sorted(have.items(), key=lambda item: str(item[0])):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(s and s.strip() for s in strings):
            found.append(f"empty translation: {key}")
        if message.fuzzy:
            found.append(f"fuzzy: {key}")
        for error in message.check(translated):
            found.append(f"bad placeholders in {key}: {error}")
    return found


def test_every_ui_string_has_an_english_translation() -> None:
    extracted = extract()
    assert len(extracted) > 50, "babel.cfg extracted almost nothing: is the mapping right?"
    assert problems(extracted, read_english()) == []


def test_extraction_covers_python_and_every_template() -> None:
    method_map, _options = _mapping()
    files = [p.relative_to(ROOT).as_posix() for p in TEMPLATES.rglob("*") if p.suffix in {".html", ".py"}]
    assert files
    for name in files:
        methods = [method for pattern, method in method_map if pathmatch(pattern, name)]
        expected = "jinja2" if name.endswith(".html") else "python"
        assert methods[:1] == [expected], f"{name} is not extracted by babel.cfg"
    locations = {filename for message in extract() for filename, _line in message.locations}
    assert "webapp/templates/base.html" in locations
    assert "webapp/cards/routes.py" in locations


# Chinese text in a template outside {{ _('…') }} would stay Chinese in the English interface.
# The product name is the one exception: 轮藏 is a name, shown in both languages.
_JINJA = re.compile(r"{#.*?#}|{{.*?}}|{%.*?%}", re.S)
_HAN = re.compile(r"[\u3400-\u9fff]+")


@pytest.mark.parametrize("template", sorted(p.relative_to(ROOT).as_posix() for p in TEMPLATES.rglob("*.html")))
def test_templates_have_no_untranslated_chinese(template: str) -> None:
    literal = _JINJA.sub(" ", (ROOT / template).read_text(encoding="utf-8"))
    assert [word for word in _HAN.findall(literal) if word != "轮藏"] == []


def _catalog(*entries: tuple[str, object], fuzzy: bool = False) -> Catalog:
    catalog = Catalog(locale="en", fuzzy=fuzzy)
    for msgid, string in entries:
        flags = ("python-format",) if "%(" in msgid else ()
        catalog.add(msgid, string, flags=flags)
    return catalog


@pytest.mark.parametrize(
    ("translated", "expected"),
    [
        (_catalog(("首页", "Home"), ("系列", "Sets")), []),
        (_catalog(("首页", "Home")), ["untranslated (missing from the .po): (None, '系列')"]),
        (_catalog(("首页", "Home"), ("系列", "")), ["empty translation: (None, '系列')"]),
        (
            _catalog(("首页", "Home"), ("系列", "Sets"), ("旧的", "Old")),
            ["obsolete (no longer in the source): (None, '旧的')"],
        ),
        (_catalog(("首页", "Home"), ("系列", "Sets"), fuzzy=True), ["the catalogue header is marked fuzzy"]),
    ],
)
def test_problems_are_reported(translated: Catalog, expected: list[str]) -> None:
    """The checker itself: a new untranslated string, an empty or stale one all fail the test."""
    assert problems(_catalog(("首页", None), ("系列", None)), translated) == expected


def test_fuzzy_obsolete_and_bad_placeholders_are_reported() -> None:
    extracted = _catalog(("没有这个游戏：%(slug)s", None), ("首页", None))
    translated = _catalog(("没有这个游戏：%(slug)s", "No such game: %(name)s"), ("首页", "Home"))
    translated["首页"].flags.add("fuzzy")
    translated.obsolete["旧的"] = translated["首页"]
    found = problems(extracted, translated)
    assert "fuzzy: (None, '首页')" in found
    assert "obsolete #~ entry: 旧的" in found
    assert any(line.startswith("bad placeholders in (None, '没有这个游戏：%(slug)s')") for line in found)

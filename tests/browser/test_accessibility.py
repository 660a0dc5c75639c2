"""Accessibility checked, not assumed. axe-core (npm, vendored by
``make vendor`` into tests/browser/vendor/axe-core/ with its licence and version) is injected by
Playwright into Debian's Chromium on every page of ``make screenshots`` (scripts/screenshots.py:
its site, its pages, its signed-in and signed-out split, plus home both ways) at 390 and 1366 px,
in Chinese and English: no critical or serious violation. Also: every visible input is labelled,
and focus is visible (a focused control draws an outline or a box shadow).

One browser, one page per signed-in state, each page loaded once per language and checked at both
widths (resized); the site is built once for the module, its card faces drawn once into the
browser tests' shared folder (``drawn_faces``), so the pages load whole.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.kits.browser import DESKTOP, PHONE, WIDTHS
from tests.kits.web import ensure_translations_compiled, served

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"

# Only the rules that can report a critical or serious violation run: a rule's violations carry
# the rule's impact, so leaving out the moderate and minor ones (region, landmarks, heading order,
# ~a third of axe's time on these pages) finds exactly what the full run filtered down would.
# The rules that read only colours (text against its background, a link against the text beside
# it; ~70 % of the rest) run on the Chinese pages and not again on the English ones: the stylesheet
# sets the colours, the same in both languages. Every other rule runs in both. No page has a frame.
COLOUR_ONLY = ["color-contrast", "link-in-text-block"]
RUN_AXE = """async (skipped) => {
  const rules = axe._audit.rules.filter(r => r.enabled && (r.impact === 'critical' || r.impact === 'serious')
                                             && !skipped.includes(r.id));
  const only = {type: 'rule', values: rules.map(r => r.id)};
  const result = await axe.run(document, {resultTypes: ['violations'], runOnly: only, iframes: false});
  return result.violations
    .filter(v => v.impact === 'critical' || v.impact === 'serious')
    .map(v => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
}"""

UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
  .filter(e => e.type !== 'hidden' && e.offsetParent !== null)
  .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')
               && !e.getAttribute('title'))
  .map(e => e.outerHTML.slice(0, 80))"""

# Tab to the first control of <main> and read how it is drawn focused.
FOCUS_SHOWN = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return true;
  const s = getComputedStyle(el);
  return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
}"""


def _data_words(database_url: str) -> list[str]:
    """The catalogue's and the user's own words (card, set and game names, types, traits,
    keywords, attributes, deck names): data, shown as written on every page. Longest first."""
    from sqlalchemy import text

    from catalog import db as catalog_db
    from catalog.games import GAMES

    engine = catalog_db.make_engine(database_url)
    words: set[str] = set()
    with engine.connect() as connection:
        for query in (
            "SELECT name FROM card", "SELECT name FROM card_set", "SELECT name FROM game",
            "SELECT name FROM saved_deck", "SELECT type FROM card", "SELECT subtype FROM card",
            "SELECT name FROM format",
        ):  # fmt: skip
            words.update(str(row[0]) for row in connection.execute(text(query)) if row[0])
    engine.dispose()
    for module in GAMES.values():
        words.update(module.attributes.canonical)
        words.add(module.name)
        words.update(module.basic_names)
    return sorted((w for w in words if w), key=len, reverse=True)


def _screenshots_module() -> Any:
    spec = importlib.util.spec_from_file_location("lunzang_screenshots", ROOT / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The served site: its address, its pages (stem, path, signed in), alice's password, its database.
Site = tuple[str, list[tuple[str, str, bool]], str, str]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, drawn_faces: Path) -> Iterator[Site]:
    ensure_translations_compiled()
    shots = _screenshots_module()
    app, deck_text = shots.build_site(tmp_path_factory.mktemp("a11y"))
    app.config["WTF_CSRF_ENABLED"] = True
    app.config["CARD_IMAGE_DIR"] = str(drawn_faces)
    try:
        with served(app) as base:
            yield base, shots.pages(deck_text), shots.PASSWORD, app.config["DATABASE_URL"]
    finally:
        from webapp.db import dispose

        dispose(app)


@pytest.mark.parametrize("signed_in", [False, True], ids=["visitor", "signed-in"])
def test_axe_finds_nothing_serious_and_inputs_are_labelled(browser: Browser, site: Any, signed_in: bool) -> None:
    """Each page is loaded once per language and checked at both widths: at the phone's, then
    resized to the desktop's. No script of the site (static/*.js, templates) reads the window's
    width, so a page resized is the page loaded at that width: the stylesheet's media queries
    decide, and they apply on a resize as on a load (the first lines below keep it so). Half the
    page loads of loading each page at each width."""
    scripts = [*(ROOT / "static").glob("*.js"), *(ROOT / "webapp" / "templates").rglob("*.html")]
    width_readers = [p.name for p in scripts if WIDTH_READ.search(p.read_text("utf-8"))]
    assert width_readers == [], f"{width_readers} read the window's width: load each page at each width again"
    base, pages, password, _database = site
    context = browser.new_context(bypass_csp=True, viewport=_VIEWPORTS[PHONE])
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems: list[str] = []
    try:
        if signed_in:
            page.goto(base + "/login")
            page.fill("input[name=username]", "alice")
            page.fill("input[name=password]", password)
            page.locator("main form button[type=submit]").first.click()
            page.wait_for_url(lambda url: "/login" not in url)
        for stem, path, needs_user in pages:
            if needs_user != signed_in and stem != "home":
                continue
            for language in ("zh", "en"):
                separator = "&" if "?" in path else "?"
                page.set_viewport_size(_VIEWPORTS[PHONE])
                page.goto(f"{base}{path}{separator}lang={language}")
                for width in WIDTHS:
                    if width != PHONE:
                        page.set_viewport_size(_VIEWPORTS[width])
                    problems += _problems(page, f"{stem} ({language}, {width} px)", language)
    finally:
        context.close()
    assert problems == [], "\n".join(problems)


# What a script would use to behave differently at another width.
WIDTH_READ = re.compile(r"matchMedia|innerWidth|outerWidth|clientWidth|screen\.width|\bresize\b")
_VIEWPORTS: dict[int, Any] = {PHONE: {"width": PHONE, "height": 844}, DESKTOP: {"width": DESKTOP, "height": 900}}


def _problems(page: Page, where: str, language: str) -> list[str]:
    """axe's critical and serious violations, unlabelled inputs, sideways scrolling and (in
    Chinese) an invisible focus, on the page as it is drawn now."""
    problems = [f"{where}: {v}" for v in page.evaluate(RUN_AXE, [] if language == "zh" else COLOUR_ONLY)]
    problems += [f"{where}: unlabelled {e}" for e in page.evaluate(UNLABELLED)]
    sideways = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if sideways > 0:
        problems.append(f"{where}: scrolls {sideways} px sideways")
    if language == "zh":
        page.locator("main").focus()
        page.keyboard.press("Tab")
        if not page.evaluate(FOCUS_SHOWN):
            focused = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
            problems.append(f"{where}: focus not visible on {focused}")
    return problems


# Text outside card data (elements marked lang="zh-…", as templates mark names, sets and rules
# text) and outside what users typed (textarea, inputs, code) must hold no CJK character and no
# full-width punctuation on an English page.
NOT_ENGLISH = r"""() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const cjk = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue.trim().replace(/\s+/g, ' ');
    if (!text || !cjk.test(text)) continue;
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, textarea, code, pre, option, [hidden]')) continue;
    const marked = parent.closest('[lang]');
    if (marked && marked.getAttribute('lang').startsWith('zh')) continue;
    if (parent.closest('.flashes') && /alice/.test(text)) continue;
    if (parent.offsetParent === null && getComputedStyle(parent).position !== 'fixed') continue;
    found.push(text);
  }
  return [...new Set(found)];
}"""


# Pages that teach the catalogue's Chinese words (search syntax examples, keyword glossaries, the
# rule texts they quote): their Chinese is the subject, not a leftover.
TEACHING = ("/help/search", "/keywords/", "/rules/")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def test_signed_in_pages_in_english_hold_no_chinese_outside_card_data(browser: Browser, site: Any) -> None:
    """English complete on every page a signed-in user reaches."""
    base, pages, password, database = site
    words = [*_data_words(database), "样例"]  # the screenshots deck's "名称: 样例" line
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(base + "/login?lang=en")
        page.fill("input[name=username]", "alice")
        page.fill("input[name=password]", password)
        page.locator("main form button[type=submit]").first.click()
        page.wait_for_url(lambda url: "/login" not in url)
        extra = ["/trades", "/trades/prices", "/events", "/events/mine", "/collection/history", "/decks/mine"]
        for path in [p for _stem, p, _user in pages] + extra:
            if path.startswith(TEACHING):
                continue
            separator = "&" if "?" in path else "?"
            page.goto(f"{base}{path}{separator}lang=en")
            for text in page.evaluate(NOT_ENGLISH):
                rest = text
                for word in words:
                    rest = rest.replace(word, "")
                if CJK.search(rest):
                    problems.append(f"{path.split('?')[0]}: {text[:60]}")
    finally:
        context.close()
    assert problems == [], "\n".join(problems)

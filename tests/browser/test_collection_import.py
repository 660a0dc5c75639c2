"""In a real browser at 390 px and 1366 px, in both languages: a file whose header no
preset knows goes through the mapping step (each column → a field, the first rows shown), the
preview, the confirmation; the pages fit the screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session, select

from catalog.models import ImportMapping
from tests.kits.browser import WIDTHS, assert_fits, new_page, sign_in
from webapp.db import get_engine

UNKNOWN = "Karte;Stück;Notiz\nSummit Fist Champion;3;aus dem Urlaub\n锅盖哥布林;2;\n"


@pytest.mark.parametrize("width", WIDTHS)
def test_an_unknown_header_is_mapped_previewed_and_imported(
    browser: Browser, live_server: str, sample_app, make_user, tmp_path, width: int
) -> None:
    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "alice")
    path = tmp_path / "karten.csv"
    path.write_text(UNKNOWN, encoding="utf-8")
    page = new_page(browser, width)
    try:
        sign_in(page, live_server)
        for lang in ("zh", "en"):
            page.goto(live_server + f"/collection/import?lang={lang}")
            assert_fits(page, width)
            page.locator("#import-file").set_input_files(str(path))
            page.locator("form.upload-form button[type=submit]").click()
            if lang == "en":  # the same header again: the mapping saved on the first import is used
                expect(page.locator(".import-format")).to_contain_text("the mapping you saved")
                assert_fits(page, width)
                page.locator("form.confirm-import button[type=submit]").click()
                expect(page.locator(".flashes")).to_be_visible()
                continue
            mapping = page.locator("form.mapping-form")
            expect(mapping).to_be_visible()
            expect(mapping).to_contain_text("aus dem Urlaub")  # the first rows
            expect(page.locator("#mapping-heading")).to_contain_text("无法识别")
            assert_fits(page, width)
            page.locator("#col-0").select_option("name")
            page.locator("#col-1").select_option("quantity")
            mapping.locator("button[type=submit]").click()
            confirm = page.locator("form.confirm-import")
            expect(confirm).to_be_visible()
            expect(page.locator(".ignored-columns")).to_contain_text("Notiz")
            assert_fits(page, width)
            confirm.locator("button[type=submit]").click()
            expect(page.locator(".flashes")).to_be_visible()
    finally:
        page.context.close()
    with Session(get_engine(sample_app)) as session:
        assert len(session.exec(select(ImportMapping)).all()) == 1

"""Browser tests: Playwright driving Debian's Chromium, every test marked ``browser``.

Needs ``apt-get install chromium`` and ``pip install playwright``; never ``playwright install``
(the browser is the system one, at /usr/bin/chromium). Fixtures are in ``conftest.py``.
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page


def open_page(browser: Browser, *, javascript: bool = True, width: int = 1280) -> Page:
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page

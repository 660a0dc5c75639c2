"""Browser tests: Playwright driving Debian's Chromium, every test marked ``browser``.

Needs ``apt-get install chromium-headless-shell chromium`` and ``pip install playwright``; never
``playwright install`` (the browser is the system one: ``make test`` runs these tests on
/usr/bin/chromium-headless-shell, ``make test-chromium`` on /usr/bin/chromium). Fixtures are in
``conftest.py``.
"""

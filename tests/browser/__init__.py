"""Browser tests: Playwright driving Debian's Chromium, every test marked ``browser``.

Needs ``apt-get install chromium`` and ``pip install playwright``; never ``playwright install``
(the browser is the system one, at /usr/bin/chromium). Fixtures are in ``conftest.py``.
"""

"""WSGI entry point for production servers: ``gunicorn webapp.wsgi:app``.

A served process imports up front the libraries its requests would otherwise import on first
use: numpy (collection pages, packs, the nearest names of an unknown card) takes ~0.15 s, which
fell on the first such request of each worker. The command line and the app factory leave it
lazy (``lunzang`` starts without it; tests/test_startup.py).
"""

import numpy  # noqa: F401  (imported for its side effect: loaded before the first request)

from webapp import create_app

app = create_app()

"""Stored Chinese wording shown in English on the English pages."""

from __future__ import annotations

from typing import Any

import pytest
from flask_babel import force_locale, gettext


@pytest.mark.parametrize(
    ("note", "english"),
    [("十二月月赛 第 2 名", "十二月月赛: place 2"), ("manual fix", "manual fix"), ("", "")],
)
def test_chest_notes(app: Any, note: str, english: str) -> None:
    from webapp.wording import chest_note

    with app.test_request_context("/?lang=en"), force_locale("en"):
        assert chest_note(note) == english
    with app.test_request_context("/"), force_locale("zh"):
        assert chest_note(note) == note


def test_the_overlord_event_kind_is_english_alone(app: Any) -> None:
    with app.test_request_context("/"), force_locale("en"):
        assert gettext("霸王赛") == "Overlord"

"""A fixed set of requests whose answers are recorded in ``tests/recorded/answers.json``: JSON
bodies byte for byte, pages as their visible text. A reorganisation of the code (moving modules,
typed API shapes, one refusal path) must leave every one of them as it was; a change of behaviour
that is meant shows here as a diff to review, and is recorded again with

    RECORD_ANSWERS=1 .venv/bin/pytest tests/test_recorded_answers.py

Only what depends on the catalogue and on the fixed user below is asked for, so nothing in the
answers moves between runs but the few values masked in ``_normalise`` (tokens, times)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from tests.kits.web import visible_text

RECORDED = Path(__file__).parent / "recorded" / "answers.json"

ANONYMOUS = [
    "/",
    "/cards?q=t:战魂 a:火",
    "/cards?q=孙悟空",
    "/cards?q=swk&lang=en",
    "/cards?q=cost<=2 r:SR&order=name",
    "/cards?q=(((",
    "/cards/samsara/孙悟空·斗战胜佛",
    "/cards/samsara/没有这张卡",
    "/sets",
    "/sets/samsara",
    "/sets/samsara/P2",
    "/keywords",
    "/keywords/samsara",
    "/help/search",
    "/help/search?lang=en",
    "/packs/",
    "/packs/samsara/P2/odds",
    "/decks",
    "/rules/samsara",
    "/events",
    "/login",
    "/register",
    "/api/v1/sets",
    "/api/v1/cards?q=t:战魂 a:火",
    "/api/v1/cards?q=孙悟空&per_page=5",
    "/api/v1/cards?q=(((",
    "/api/v1/cards/samsara/孙悟空·斗战胜佛",
    "/api/v1/packs/odds?game=samsara&set=P2",
    "/api/v1/collection",
    "/api/v1/events",
    "/suggest?q=sun",
    "/nothing-here",
]
SIGNED_IN = [
    "/collection",
    "/collection?lang=en",
    "/collection/sets",
    "/collection/history",
    "/collection/export.csv",
    "/wants",
    "/haves",
    "/decks/mine",
    "/decks/owned",
    "/trades",
    "/trades/matches",
    "/account",
    "/events/mine",
    "/cards?q=t:战魂 a:火",
    "/trades?lang=en",
    "/wants?lang=en",
]

# values that differ between runs by design: masked before recording and comparing
_VOLATILE = [
    (re.compile(r"\b[0-9a-f]{32}\b"), "<hex32>"),  # catalogue versions, ETags
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"用时 [\d.]+ ?(毫秒|秒|ms|s)"), "用时 <t>"),
]


def _normalise(text: str) -> str:
    for pattern, mask in _VOLATILE:
        text = pattern.sub(mask, text)
    return text


def _answer(response: Any) -> dict[str, Any]:
    body = response.get_data(as_text=True)
    if response.mimetype == "application/json":
        shown = _normalise(body)
    elif response.mimetype == "text/html":
        shown = _normalise(visible_text(body))
    else:
        shown = _normalise(body)
    return {"status": response.status_code, "type": response.mimetype, "body": shown}


def _record(sample_app: Any, login: Any) -> dict[str, Any]:
    from datetime import UTC, datetime

    from catalog.collection import change_item
    from webapp.db import get_engine

    answers: dict[str, Any] = {}
    # ?lang=en is remembered by the client's session: English pages get a client of their own
    anonymous, anonymous_en = sample_app.test_client(), sample_app.test_client()
    for url in ANONYMOUS:
        answers[f"anonymous {url}"] = _answer((anonymous_en if "lang=en" in url else anonymous).get(url))
    alice, alice_en = sample_app.test_client(), sample_app.test_client()
    user = login(alice, "alice")
    login(alice_en, "alice")
    with Session(get_engine(sample_app)) as session, session.begin():
        for delta, number in enumerate(("P2-001", "P2-004", "S8-001"), start=1):
            change_item(session=session, user_id=user.id, set_code=number.split("-")[0], number=number, delta=delta,
                        now=datetime(2026, 1, 2, tzinfo=UTC))  # fmt: skip
    for url in SIGNED_IN:
        answers[f"alice {url}"] = _answer((alice_en if "lang=en" in url else alice).get(url))
    return answers


def test_the_recorded_answers_hold(sample_app: Any, login: Any) -> None:
    answers = _record(sample_app, login)
    if os.environ.get("RECORD_ANSWERS"):
        RECORDED.parent.mkdir(exist_ok=True)
        RECORDED.write_text(json.dumps(answers, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        pytest.skip("recorded anew")
    recorded = json.loads(RECORDED.read_text())
    assert sorted(answers) == sorted(recorded)
    changed = [key for key in recorded if answers[key] != recorded[key]]
    assert not changed, "answers changed:\n" + "\n".join(
        f"{key}: {recorded[key]['status']} → {answers[key]['status']}" for key in changed
    )

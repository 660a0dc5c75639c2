"""The JSON API's shared conventions: OpenAPI document, JSON errors."""

from __future__ import annotations

import re
from typing import Any

import pytest


def test_openapi_document_lists_every_api_route(client: Any) -> None:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    spec = response.get_json()
    assert spec["openapi"].startswith("3.")
    documented = set(spec["paths"])
    normalised = {
        re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule.removeprefix("/api/v1"))
        for rule in client.application.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/")
    }
    assert normalised <= documented, normalised - documented


def test_unknown_api_path_is_json_404(client: Any) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


def test_json_keeps_chinese_readable(sample_app: Any) -> None:
    raw = sample_app.test_client().get("/api/v1/cards", query_string={"q": "swk"}).get_data(as_text=True)
    assert "孙悟空" in raw and "\\u5b59" not in raw


@pytest.mark.parametrize(
    ("path", "required"),
    [
        ("/trades/{trade_id}/accept", ["version"]),
        ("/trades/{trade_id}/counter", ["version"]),
        ("/trades", ["to"]),
    ],
)
def test_the_document_requires_what_the_server_requires(client: Any, path: str, required: list[str]) -> None:
    """Issue 16 §12 (schemathesis): a body the document calls valid is not refused for a missing field."""
    spec = client.get("/api/v1/openapi.json").get_json()
    body = spec["paths"][path]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    assert body["required"] is True and schema["required"] == required


@pytest.mark.parametrize("script_root", ["", "/lunzang"])
def test_card_urls_of_a_search_answer_are_url_fors(client: Any, script_root: str) -> None:
    """The API builds its cards' URLs once per game (webapp/api/cards.py): each must be what
    url_for gives, for any name a catalogue may hold, under a mounted app too."""
    from flask import url_for

    from webapp.api.cards import card_url_builder

    names = ["孙悟空", "a/b", "50% off", "what?#x", "two words", "~tilde~", "é", "「龍王」·Ⅱ", "+&=;@:!$'()*,"]
    with client.application.test_request_context("/api/v1/cards", environ_base={"SCRIPT_NAME": script_root}):
        card_url = card_url_builder()
        for game in ("samsara", "keyforge"):
            for name in names:
                assert card_url(game, name) == url_for("cards.card_detail", game_slug=game, name=name), (game, name)


def test_a_search_answers_card_urls_that_open_the_card(sample_app: Any, client: Any) -> None:
    cards = client.get("/api/v1/cards", query_string={"q": "swk"}).get_json()["cards"]
    assert cards
    for card in cards:
        page = client.get(card["url"])
        assert page.status_code == 200 and card["name"] in page.get_data(as_text=True)

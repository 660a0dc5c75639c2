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
    """Schemathesis: a body the document calls valid is not refused for a missing field."""
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


@pytest.mark.parametrize(
    ("path", "body", "field", "zh"),
    [
        ("/packs/open", {"set": 5, "boxes": 1}, "set", "应是字符串"),
        ("/packs/open", {"boxes": 1}, "set", "缺少"),
        ("/packs/open", {"set": "M4", "boxes": 1, "add_to_collection": "yes"}, "add_to_collection", "true 或 false"),
        ("/trades", {"to": "bob", "give_decks": [0]}, "give_decks[0]", "不能小于 1"),
        ("/trades/1/accept", {"version": "3"}, "version", "应为整数"),
    ],
)
def test_a_body_its_shape_refuses_is_a_400_naming_the_field_in_both_languages(
    client: Any, engine: Any, make_user: Any, path: str, body: Any, field: str, zh: str
) -> None:
    """One handler (webapp.api) answers pydantic's ValidationError with the API's error shape."""
    from datetime import UTC, datetime

    from sqlmodel import Session

    from catalog.accounts import issue_token

    with Session(engine) as session:
        token = issue_token(session=session, user=make_user(session), name="test", now=datetime.now(UTC))[1]
        session.commit()
    response = client.post(f"/api/v1{path}", json=body, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 400, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == "bad_request"
    assert field in error["message"] and zh in error["message"]
    assert f"'{field}'" in error["message_en"]


def test_validation_messages_name_nested_fields() -> None:
    from pydantic import ValidationError

    from webapp.shapes.errors import validation_messages
    from webapp.shapes.trading import CounterOffer

    with pytest.raises(ValidationError) as caught:
        CounterOffer.model_validate({"version": 1, "give_decks": [1, "x"]})
    assert validation_messages(caught.value) == ("give_decks[1] 应为整数", "'give_decks[1]' must be a whole number")

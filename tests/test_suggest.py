"""Name suggestions while typing: the JSON endpoint and the index behind it."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.suggest import SuggestIndex
from catalog.text import KEY_SEPARATOR


def _index() -> SuggestIndex:
    names = [
        ("sunwukong", "孙悟空", "samsara", "孙悟空", "sunwukong", "swk", "monkey king"),
        ("xiaohongmao", "小红帽", "samsara", "小红帽", "xiaohongmao", "xhm", ""),
        ("xiaosun", "小孙", "samsara", "小孙", "xiaosun", "xs", ""),
        ("qingshuangjian", "青霜劍", "longzhiyi", "青霜剑", "qingshuangjian", "qsj", ""),
    ]
    return SuggestIndex([(sort, name, game, KEY_SEPARATOR.join(keys)) for sort, name, game, *keys in names])


@pytest.mark.parametrize(
    ("query", "game", "expected"),
    [
        ("孙", None, ["孙悟空", "小孙"]),  # the prefix first, then the name containing it
        ("孫", None, ["孙悟空", "小孙"]),  # Traditional folds to Simplified
        ("ＳＷＫ", None, ["孙悟空"]),  # full-width initials
        ("sun", None, ["孙悟空", "小孙"]),
        ("monkey", None, ["孙悟空"]),
        ("霜劍", None, ["青霜劍"]),
        ("霜剑", "samsara", []),
        ("x", "samsara", ["小红帽", "小孙"]),
        ("", None, []),
        ("   ", None, []),
        ("\x1f", None, []),
        ("zzz", None, []),
    ],
)
def test_lookup(query: str, game: str | None, expected: list[str]) -> None:
    assert [s.name for s in _index().lookup(query, game=game)] == expected


def test_limit_is_kept() -> None:
    assert [s.name for s in _index().lookup("s", limit=1)] == ["孙悟空"]


def test_the_endpoint_answers_json(sample_app: Any, client: Any) -> None:
    body = client.get("/suggest", query_string={"q": "小红帽", "game": "samsara"}).get_json()
    names = [item["name"] for item in body["suggestions"]]
    assert names and all("小红帽" in name for name in names)
    assert body["suggestions"][0]["url"].startswith("/cards/samsara/")
    pinyin = client.get("/suggest", query_string={"q": "xiaohongmao"}).get_json()
    assert [item["name"] for item in pinyin["suggestions"]] == names or pinyin["suggestions"]


@pytest.mark.parametrize(
    "query_string",
    [{"q": "x" * 5000}, {"q": "小", "limit": "-3"}, {"q": "小", "limit": "abc"}, {"q": "小", "limit": "99999"}, {}],
)
def test_odd_input_never_fails(sample_app: Any, query_string: dict[str, str]) -> None:
    response = sample_app.test_client().get("/suggest", query_string=query_string)
    assert response.status_code == 200 and len(response.get_json()["suggestions"]) <= 20


def test_an_unknown_game_is_a_clear_error(sample_app: Any) -> None:
    response = sample_app.test_client().get("/suggest", query_string={"q": "小", "game": "nope"})
    assert response.status_code == 400
    assert response.get_json()["error"]["message_en"] == "no such game: nope"


def test_the_want_list_takes_one_card_by_name(sample_app: Any, client: Any, login: Any) -> None:
    login(client, "alice")
    page = client.get("/wants").get_data(as_text=True)
    assert 'id="want-name"' in page and "data-suggest" in page
    response = client.post("/wants/bulk", data={"name": "小红帽·森林歌者", "count": "2", "game": "samsara"})
    assert response.status_code == 302
    assert "小红帽·森林歌者" in client.get("/wants").get_data(as_text=True)
    bad = client.post("/wants/bulk", data={"name": "没有这张卡", "count": "1", "game": "samsara"})
    assert bad.status_code == 400

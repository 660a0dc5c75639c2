"""Wants pasted as a list: decklist format, one transaction, all or nothing,
bad lines named by number, capped like a decklist."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session

from catalog.decks.lists import MAX_LINES
from tests.kits.collection import printing_id
from tests.kits.wants import add_want, card_id, engine_of, wants_of


def paste(client: Any, text: str, game: str = "samsara", condition: str = "LP") -> Any:
    return client.post("/wants/bulk", data={"list": text, "game": game, "min_condition": condition})


def ids(client: Any, *names: str) -> list[int]:
    with Session(engine_of(client)) as session:
        return [card_id(session, name) for name in names]


def test_a_pasted_list_sets_every_want(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    text = "主卡组:\n3 小红帽·森林歌者\n1 小红帽·狼猎手 (M4)\n# a comment\n备牌:\n2x 小红帽·森林歌者\n"
    response = paste(client, text)
    assert response.status_code == 302
    forest, hunter = ids(client, "小红帽·森林歌者", "小红帽·狼猎手")
    with Session(engine_of(client)) as session:
        hunter_m4 = printing_id(session, "M4", "M4-002")
    rows = sorted(wants_of(client, alice.id))
    assert sorted([(forest, None, 5, "LP"), (hunter, hunter_m4, 1, "LP")]) == rows  # lines of one card add up
    page = client.get("/wants").get_data(as_text=True)
    assert "已加入需求列表：2 种卡，共 6 张" in page


def test_the_number_is_the_wanted_total_not_added_to_an_existing_want(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    assert add_want(client, language="简中").status_code == 302  # 2 wanted, LP, in 简中
    assert paste(client, "4 小红帽·森林歌者", condition="HP").status_code == 302
    ((_card, _printing, quantity, condition),) = wants_of(client, alice.id)
    assert (quantity, condition) == (4, "HP")
    assert "简中" in client.get("/wants").get_data(as_text=True)  # what it insisted on is kept


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3 小红帽·森林歌者\n2 没有这张卡\n1 也没有\n", ["第 2 行", "没有这张卡", "第 3 行", "也没有"]),
        ("3 小红帽·森林歌者\n这一行不是卡\n", ["第 2 行"]),
        ("1 小红帽·森林歌者\n1 小红帽·森林歌者 (S8)\n", ["第 2 行", "S8"]),
        ("999 小红帽·森林歌者\n999 小红帽·森林歌者\n", ["第 2 行", "1998", "1000"]),
    ],
)
def test_one_bad_line_changes_nothing_and_is_named(
    sample_app: Any, client: Any, login: Any, text: str, expected: list[str]
) -> None:
    alice = login(client)
    assert add_want(client).status_code == 302
    before = wants_of(client, alice.id)
    response = paste(client, text)
    body = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "列表有问题，什么都没有加入" in body
    for word in expected:
        assert word in body, word
    assert text.splitlines()[0] in body  # the pasted text is given back to be corrected
    assert wants_of(client, alice.id) == before


def test_a_list_longer_than_a_decklist_is_refused(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    response = paste(client, "1 小红帽·森林歌者\n" * (MAX_LINES + 1))
    assert response.status_code == 400 and f"{MAX_LINES} 行" in response.get_data(as_text=True)
    assert wants_of(client, alice.id) == []


def test_the_game_comes_from_the_list_or_the_form(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    assert paste(client, "游戏: 永恒之轮\n1 小红帽·狼猎手\n", game="").status_code == 302
    assert len(wants_of(client, alice.id)) == 1
    response = paste(client, "1 小红帽·狼猎手\n", game="")
    assert response.status_code == 400 and "请指定游戏" in response.get_data(as_text=True)
    empty = paste(client, "主卡组:\n")
    assert empty.status_code == 400 and "没有卡牌行" in empty.get_data(as_text=True)


def test_bulk_wants_need_a_signed_in_user(sample_app: Any) -> None:
    response = sample_app.test_client().post("/wants/bulk", data={"list": "1 小红帽·狼猎手"})
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_the_wants_page_has_the_paste_form_in_english(sample_app: Any, client: Any, login: Any) -> None:
    from tests.kits.web import ensure_translations_compiled

    ensure_translations_compiled()
    login(client)
    page = client.get("/wants?lang=en").get_data(as_text=True)
    assert 'action="/wants/bulk"' in page and "Paste a list to add many" in page
    form = {"list": "2 没有这张卡\n", "game": "samsara", "min_condition": "LP"}
    body = client.post("/wants/bulk?lang=en", data=form).get_data(as_text=True)
    assert "line 1:" in body and "nothing was added" in body

"""Deck checking against the sample catalogue: formats and ban lists from the manifests,
the CLI (exit codes) and the API (same verdict), text and JSON decklists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import DeckCheckError, check_decklist
from tests.kits.deck import legal_samsara_list


def run(engine: Engine, text: str, game: str | None = "samsara", format_code: str | None = None) -> Any:
    with Session(engine) as session:
        return check_decklist(session=session, text=text, game=game, format_code=format_code)


def test_a_legal_deck_in_every_samsara_format(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue)
    for code in (None, "standard", "m8"):
        verdict = run(sample_catalogue, text, format_code=code).verdict
        assert verdict.legal, verdict.to_json()
        assert verdict.counts["main"] == 51
    assert run(sample_catalogue, text).verdict.format == "standard"


@pytest.mark.parametrize(
    ("line", "code", "expected"),
    [
        ("1 虚华·空暝之主", "m8", ["banned"]),
        ("1 虚华·空暝之主", "standard", []),  # the ban list belongs to m8 only
        ("2 绝闪·龙皇降临", "m8", ["too_many_copies"]),  # 限制: 1
        ("1 绝闪·龙皇降临", "m8", []),
        ("3 亚瑟王·圣剑之誓", "m8", ["too_many_copies"]),  # 准限制: 2
        ("1 赤炎燧族·焚火战士 (M1)", "m8", []),  # M1 is not legal in m8, its G2 reprint is
        ("1 M1-004", "m8", []),
        ("1 小红帽·森林歌者", "m8", ["not_legal_in_format"]),  # M4 only
        ("1 小红帽·森林歌者", "standard", []),
    ],
)
def test_sample_formats_ban_lists_and_reprints(
    sample_catalogue: Engine, line: str, code: str, expected: list[str]
) -> None:
    text = legal_samsara_list(sample_catalogue).replace("额外卡组:", f"{line}\n额外卡组:")
    verdict = run(sample_catalogue, text, format_code=code).verdict
    assert [v.code for v in verdict.errors] == expected


def test_m8_caps_the_extra_deck_at_15(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue) + "16 无之法力石\n"
    assert [v.code for v in run(sample_catalogue, text, format_code="m8").verdict.errors] == ["extra_too_large"]
    assert run(sample_catalogue, text, format_code="standard").verdict.legal


@pytest.mark.parametrize("written", ["M8", "M8 新环境", "ｍ８"])
def test_format_by_folded_code_or_name(sample_catalogue: Engine, written: str) -> None:
    assert run(sample_catalogue, "1 火之法力石\n", format_code=written).verdict.format == "m8"


def test_game_and_format_from_the_decklist(sample_catalogue: Engine) -> None:
    text = "游戏: 永恒之轮\n赛制: m8\n" + legal_samsara_list(sample_catalogue) + "1 虚华·空暝之主\n"
    result = run(sample_catalogue, text, game=None)
    assert result.verdict.game == "samsara" and result.verdict.format == "m8"
    assert "banned" in result.verdict.codes()


@pytest.mark.parametrize(
    ("game", "format_code", "message"),
    [("samsara", "nosuch", "没有赛制「nosuch」"), ("nosuch", None, "未知的游戏"), (None, None, "请指定游戏")],
)
def test_unknown_game_or_format(
    sample_catalogue: Engine, game: str | None, format_code: str | None, message: str
) -> None:
    with pytest.raises(DeckCheckError) as error:
        run(sample_catalogue, "1 火之法力石\n", game=game, format_code=format_code)
    assert message in error.value.message.zh


def test_other_games_against_the_sample(sample_catalogue: Engine) -> None:
    zhutian = run(sample_catalogue, "职业: 仙道士\n1 煉妖壺\n", "zhutian", "competitive").verdict
    assert {"banned", "deck_too_small"} <= set(zhutian.codes())
    longzhiyi = run(sample_catalogue, "1 青霜劍\n4 書院弟子\n", "longzhiyi", "tournament").verdict
    assert longzhiyi.codes() == ["deck_too_small"]
    keyforge = run(sample_catalogue, "12 山岳拳王\n", "keyforge").verdict
    assert {"deck_size", "house_count"} <= set(keyforge.codes())


def test_json_and_text_give_the_same_verdict(sample_catalogue: Engine) -> None:
    text = legal_samsara_list(sample_catalogue) + "1 虚华·空暝之主\n"
    from_text = run(sample_catalogue, text, format_code="m8")
    from catalog.decks.lists import write_json

    as_json = json.dumps(write_json(from_text.deck), ensure_ascii=False)
    from_json = run(sample_catalogue, as_json, format_code="m8")
    strip = [{k: v for k, v in item.items() if k != "lines"} for item in from_text.verdict.to_json()["violations"]]
    assert [
        {k: v for k, v in item.items() if k != "lines"} for item in from_json.verdict.to_json()["violations"]
    ] == strip


# ---------------------------------------------------------------------------- CLI


def _write(tmp_path: Path, text: str, name: str = "deck.txt") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_cli_exit_codes_and_json(
    runner: Any, sample_app: Any, client: Any, sample_catalogue: Engine, tmp_path: Path
) -> None:
    legal = _write(tmp_path, legal_samsara_list(sample_catalogue))
    result = runner.invoke(args=["deck", "check", legal, "--game", "samsara", "--format", "m8"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("合法")

    illegal_text = legal_samsara_list(sample_catalogue) + "1 虚华·空暝之主\n"
    illegal = _write(tmp_path, illegal_text, "bad.txt")
    result = runner.invoke(args=["deck", "check", illegal, "--game", "samsara", "--format", "m8", "--json"])
    assert result.exit_code == 1
    verdict = json.loads(result.output)
    assert verdict["legal"] is False and [v["code"] for v in verdict["violations"]][:1] == ["banned"]

    api = client.post("/api/v1/decks/check", json={"decklist": illegal_text, "game": "samsara", "format": "m8"})
    answer = api.get_json()
    answer.pop("deck")
    assert answer == verdict  # the same verdict from the CLI and the API

    human = runner.invoke(args=["deck", "check", illegal, "--game", "samsara", "--format", "m8"])
    assert human.exit_code == 1 and "[banned]" in human.output and "不合法" in human.output


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("1 火之法力石\n杂项:\n", ["--game", "samsara"], ":2: 未知的分区「杂项」"),
        ('{"main": [', ["--game", "samsara"], ":1: JSON 格式错误"),
        ("1 火之法力石\n", ["--game", "nosuch"], "未知的游戏"),
        ("1 火之法力石\n", ["--game", "samsara", "--format", "nosuch"], "没有赛制"),
        (None, ["--game", "samsara"], "无法读取文件"),
    ],
)
def test_cli_unreadable_exits_2(
    runner: Any, sample_catalogue: Engine, tmp_path: Path, content: str | None, args: list[str], message: str
) -> None:
    path = _write(tmp_path, content) if content is not None else str(tmp_path / "missing.txt")
    result = runner.invoke(args=["deck", "check", path, *args])
    assert result.exit_code == 2
    assert message in result.output


def test_cli_refuses_a_file_that_is_not_utf8(runner: Any, sample_catalogue: Engine, tmp_path: Path) -> None:
    path = tmp_path / "gbk.txt"
    path.write_bytes("3 火之法力石\n".encode("gbk"))
    result = runner.invoke(args=["deck", "check", str(path), "--game", "samsara"])
    assert result.exit_code == 2 and "不是 UTF-8" in result.output


# ---------------------------------------------------------------------------- API


def test_api_accepts_text_json_envelope_and_json_deck(sample_app: Any, client: Any) -> None:
    text = "3 小红帽·森林歌者\n1 不存在的卡\n"
    plain = client.post("/api/v1/decks/check?game=samsara", data=text.encode(), content_type="text/plain")
    envelope = client.post("/api/v1/decks/check", json={"decklist": text, "game": "samsara"})
    deck = {"game": "samsara", "main": [{"card": "小红帽·森林歌者", "count": 3}, {"card": "不存在的卡", "count": 1}]}
    as_deck = client.post("/api/v1/decks/check", json=deck)
    nested = client.post("/api/v1/decks/check", json={"decklist": deck, "format": "standard"})
    for response in (plain, envelope, as_deck, nested):
        assert response.status_code == 200, response.get_data(as_text=True)
        body = response.get_json()
        assert body["legal"] is False and body["game"] == "samsara" and body["format"] == "standard"
        assert [v["code"] for v in body["violations"]][:2] == ["unknown_card", "main_too_small"]
        assert body["counts"] == {"main": 4, "extra": 0, "side": 0}  # the unknown line counts as written
    assert plain.get_json()["deck"]["main"] == [{"card": "小红帽·森林歌者", "count": 3}]


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        (
            {"data": "1 x\n未知:\n", "content_type": "text/plain", "query_string": {"game": "samsara"}},
            "unreadable_decklist",
        ),
        ({"data": "{not json", "content_type": "application/json"}, "unreadable_decklist"),
        ({"json": {"game": "samsara"}}, "unreadable_decklist"),
        ({"json": ["1 x"]}, "unreadable_decklist"),
        ({"json": {"decklist": "1 x", "game": "nosuch"}}, "bad_request"),
        ({"json": {"decklist": "1 x", "game": "samsara", "format": "nosuch"}}, "bad_request"),
        (
            {"data": b"\xff\xfe1", "content_type": "text/plain", "query_string": {"game": "samsara"}},
            "unreadable_decklist",
        ),
    ],
)
def test_api_errors_are_json_400(sample_app: Any, kwargs: dict[str, Any], code: str) -> None:
    response = sample_app.test_client().post("/api/v1/decks/check", **kwargs)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == code and error["message"] and error["message_en"]


def test_api_parse_errors_carry_numbered_problems(sample_app: Any) -> None:
    response = sample_app.test_client().post(
        "/api/v1/decks/check", json={"decklist": "1 火之法力石\n0 火之法力石\n", "game": "samsara"}
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["problems"][0]["line"] == 2


def test_api_is_documented(client: Any) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    assert "post" in spec["paths"]["/decks/check"]
    assert "Verdict" in spec["components"]["schemas"]


def test_cli_reads_standard_input(runner: Any, sample_catalogue: Engine) -> None:
    result = runner.invoke(args=["deck", "check", "-", "--game", "keyforge", "--json"], input="12 山岳拳王\n")
    assert result.exit_code == 1
    assert json.loads(result.output)["counts"] == {"main": 12, "extra": 0, "side": 0}


def test_cli_on_an_empty_database_says_what_to_do(tmp_path: Path) -> None:
    from webapp import create_app

    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}"})
    from webapp.db import dispose

    result = app.test_cli_runner().invoke(args=["deck", "check", _write(tmp_path, "1 x\n"), "--game", "samsara"])
    dispose(app)
    assert result.exit_code == 2 and "init-db" in result.output

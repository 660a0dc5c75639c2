"""Booster simulator through its callers: the ``lunzang packs`` CLI, the JSON API, the pages."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.kits.web import ensure_translations_compiled

# ---- CLI --------------------------------------------------------------------------------


def test_cli_open_json_is_reproducible(sample_app: Any) -> None:
    runner = sample_app.test_cli_runner()
    first = runner.invoke(args=["packs", "open", "--set", "M4", "--boxes", "1", "--seed", "42", "--json"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(args=["packs", "open", "--set", "m4", "--boxes", "1", "--seed", "42", "--json"])
    assert first.output == again.output
    data = json.loads(first.output)
    assert data["set"] == "M4" and data["seed"] == 42
    assert len(data["boxes"]) == 1 and len(data["boxes"][0]["packs"]) == 16
    other = runner.invoke(args=["packs", "open", "--set", "M4", "--boxes", "1", "--seed", "43", "--json"])
    assert json.loads(other.output)["boxes"] != data["boxes"]


def test_cli_open_text_shows_the_fresh_seed(sample_app: Any) -> None:
    result = sample_app.test_cli_runner().invoke(args=["packs", "open", "--set", "M4", "--packs", "2"])
    assert result.exit_code == 0, result.output
    seed = int(re.search(r"种子 (\d+)", result.output).group(1))
    replay = sample_app.test_cli_runner().invoke(
        args=["packs", "open", "--set", "M4", "--packs", "2", "--seed", str(seed)]
    )
    assert replay.output == result.output
    assert "第 2 包" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["open", "--set", "ZZ", "--boxes", "1"], "没有系列「ZZ」"),
        (["open", "--set", "M4", "--boxes", "0"], "盒数应在 1 到"),
        (["open", "--set", "M4", "--boxes", "1", "--seed", "-1"], "种子不能是负数"),
        (["open", "--set", "S8", "--boxes", "1"], "没有卡包模板"),
        (["open", "--set", "M4"], "请给出包数或盒数"),
        (["open", "--set", "M4", "--boxes", "两"], "盒数应是整数"),
        (["odds", "--set", "S8"], "没有卡包模板"),
        (["complete", "--set", "M4", "--trials", "0", "--seed", "1"], "模拟次数应在"),
        (["open", "--set", "M4", "--boxes", "1", "--game", "mtg"], "没有这个游戏"),
    ],
)
def test_cli_bad_input_exits_2_with_a_chinese_message(sample_app: Any, args: list[str], message: str) -> None:
    result = sample_app.test_cli_runner().invoke(args=["packs", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_odds_json(sample_app: Any) -> None:
    result = sample_app.test_cli_runner().invoke(args=["packs", "odds", "--set", "M4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["set"] == "M4"
    assert data["per_pack"]["SR"]["expected"] == pytest.approx(0.03)
    assert data["per_pack"]["SR"]["p_at_least_one"] == pytest.approx(0.03)
    assert data["per_box"]["SR"]["expected"] == pytest.approx(0.48)
    assert data["per_box"]["SR"]["p_at_least_one"] == pytest.approx(1 - 0.97**16)
    text = sample_app.test_cli_runner().invoke(args=["packs", "odds", "--set", "M4"])
    assert text.exit_code == 0 and "SR" in text.output


def test_cli_complete_json(sample_app: Any) -> None:
    result = sample_app.test_cli_runner().invoke(
        args=["packs", "complete", "--set", "M4", "--trials", "500", "--seed", "3", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["set"] == "M4" and data["trials"] == 500 and data["seed"] == 3
    assert {"mean", "p50", "p90", "p99"} <= set(data["complete"]) and {"mean", "p50"} <= set(data["playset"])
    assert data["complete"]["mean"] == pytest.approx(data["complete"]["exact_mean"], rel=0.1)


# ---- API --------------------------------------------------------------------------------


def test_api_open_is_reproducible(sample_app: Any, client: Any) -> None:
    first = client.post("/api/v1/packs/open", json={"set": "M4", "boxes": 1, "seed": 42})
    assert first.status_code == 200
    assert first.get_json() == client.post("/api/v1/packs/open", json={"set": "M4", "boxes": 1, "seed": 42}).get_json()
    cli = sample_app.test_cli_runner().invoke(
        args=["packs", "open", "--set", "M4", "--boxes", "1", "--seed", "42", "--json"]
    )
    assert json.loads(cli.output)["boxes"] == first.get_json()["boxes"]  # the same cards everywhere
    fresh = client.post("/api/v1/packs/open", json={"set": "M4", "packs": 3}).get_json()
    assert isinstance(fresh["seed"], int) and len(fresh["boxes"][0]["packs"]) == 3


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"set": "ZZ", "boxes": 1}, "unknown_set"),
        ({"set": "M4", "boxes": 0}, "bad_count"),
        ({"set": "M4", "boxes": 1, "seed": -5}, "bad_seed"),
        ({"set": "S8", "boxes": 1}, "no_pack_template"),
        ({"set": "M4", "boxes": "many"}, "bad_count"),
        ({"boxes": 1}, "bad_request"),
        (["M4"], "bad_request"),
    ],
)
def test_api_open_bad_input_is_a_400_json_error(sample_app: Any, body: Any, code: str) -> None:
    response = sample_app.test_client().post("/api/v1/packs/open", json=body)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == code and error["message"] and error["message_en"]


def test_api_odds(sample_app: Any, client: Any) -> None:
    data = client.get("/api/v1/packs/odds?set=M4&boxes=2").get_json()
    assert data["per_pack"]["R"]["expected"] == pytest.approx(0.35) and data["n_boxes"] == 2
    assert len(data["printings"]) == 45
    assert client.get("/api/v1/packs/odds?set=S8").status_code == 400
    assert client.get("/api/v1/packs/odds").status_code == 400


def test_api_operations_are_documented(client: Any) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    assert "post" in spec["paths"]["/packs/open"] and "get" in spec["paths"]["/packs/odds"]
    assert {"PackOpenRequest", "PackOpening", "PackOdds"} <= set(spec["components"]["schemas"])


# ---- pages ------------------------------------------------------------------------------


def test_choose_a_set_page(sample_app: Any) -> None:
    page = sample_app.test_client().get("/packs/").get_data(as_text=True)
    assert 'value="samsara:M4"' in page and 'value="samsara:S8"' not in page
    assert "/packs/samsara/M4/odds" in page and "/packs/samsara/M4/complete" in page
    home = sample_app.test_client().get("/").get_data(as_text=True)
    assert 'href="/packs/"' in home and "开包" in home


def test_form_and_seedless_urls_redirect_to_a_replayable_url(sample_app: Any, client: Any) -> None:
    form = client.get("/packs/open?set=samsara:M4&open=boxes&n=2&seed=8")
    assert form.status_code == 302 and form.headers["Location"].endswith("/packs/samsara/M4/open?seed=8&boxes=2")
    seedless = client.get("/packs/samsara/M4/open?packs=1")
    assert seedless.status_code == 302 and re.search(r"seed=\d+", seedless.headers["Location"])


def test_opening_page_reveal_and_replay(sample_app: Any, client: Any) -> None:
    page = client.get("/packs/samsara/M4/open?boxes=1&seed=42").get_data(as_text=True)
    assert page == client.get("/packs/samsara/M4/open?boxes=1&seed=42").get_data(as_text=True)
    assert page.count('class="pack-card"') == 128
    assert "/cards/samsara/" in page and "packs.js" in page
    assert "http://localhost/packs/samsara/M4/open?seed=42&amp;boxes=1" in page  # the link to share
    api = client.post("/api/v1/packs/open", json={"set": "M4", "boxes": 1, "seed": 42}).get_json()
    for card in api["boxes"][0]["packs"][0]["cards"]:
        assert card["number"] in page
    summary = page[page.index("best-pulls") : page.index('class="reveal"')]
    levels = [int(x) for x in re.findall(r'data-level="(\d)"', summary)]
    assert levels == sorted(levels, reverse=True)  # best pulls first


def test_odds_and_completion_pages(sample_app: Any, client: Any) -> None:
    odds = client.get("/packs/samsara/M4/odds").get_data(as_text=True)
    assert "精确" in odds and "38.57%" in odds  # P(≥1 SR in a box) = 1 − 0.97¹⁶
    complete = client.get("/packs/samsara/M4/complete?trials=300&seed=2").get_data(as_text=True)
    assert "<svg" in complete and 'class="bar"' in complete and "精确期望" in complete
    ensure_translations_compiled()
    english = client.get("/packs/samsara/M4/odds?lang=en").get_data(as_text=True)
    assert "Exact odds" in english


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/packs/samsara/ZZ/open?boxes=1&seed=1", 404, "没有系列「ZZ」"),
        ("/packs/samsara/M4/open?boxes=0&seed=1", 400, "盒数应在 1 到"),
        ("/packs/samsara/M4/open?boxes=1&seed=-3", 400, "种子不能是负数"),
        ("/packs/samsara/S8/open?boxes=1&seed=1", 400, "没有卡包模板"),
        ("/packs/samsara/S8/odds", 400, "没有卡包模板"),
        ("/packs/samsara/M4/complete?trials=999999&seed=1", 400, "模拟次数应在"),
        ("/packs/nogame/M4/odds", 404, "没有这个游戏"),
    ],
)
def test_pages_explain_bad_input(sample_app: Any, url: str, status: int, message: str) -> None:
    response = sample_app.test_client().get(url)
    assert response.status_code == status
    assert message in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("seed", "status"), [("9223372036854775807", 200), ("1452631519889181416", 200), ("9223372036854775808", 400)]
)
def test_every_seed_up_to_2_63_opens(sample_app: Any, seed: str, status: int) -> None:
    """Seeds are 0 … 2⁶³−1 (DESIGN §7); the random seed of "开 1 盒" usually has 19 digits."""
    response = sample_app.test_client().get(f"/packs/samsara/M4/open?packs=1&seed={seed}")
    assert response.status_code == status


def test_completion_from_my_collection(sample_app: Any, login: Any) -> None:
    """how many more boxes given what I own; the exact mean counts only what I lack."""
    import re

    from sqlmodel import Session

    from catalog import boosters
    from catalog.collection.ledger import adjust
    from tests.kits.collection import NOW
    from webapp.db import get_engine

    client = sample_app.test_client()
    alice = login(client, "alice")
    with Session(get_engine(sample_app)) as session, session.begin():
        model = boosters.load_pack_model(session=session, set_code="M4", game="samsara")
        rarest = set(model.obtainable()[-2:])  # what takes the boxes: the two rarest rarities
        for printing in model.printings:
            if printing.rarity in rarest:
                adjust(session=session, user_id=alice.id, printing_id=printing.id, delta=3, reason="manual", now=NOW)

    def exact_of(page: str) -> float:
        match = re.search(r'data-exact="([0-9.]+)"', page)
        assert match, page[:2000]
        return float(match.group(1))

    fresh = client.get("/packs/samsara/M4/complete?seed=7&trials=200").get_data(as_text=True)
    mine = client.get("/packs/samsara/M4/complete?seed=7&trials=200&mine=1").get_data(as_text=True)
    assert "从你的收藏算起" in mine and 'name="mine" value="1" checked' in mine
    assert exact_of(mine) < exact_of(fresh)
    assert sample_app.test_client().get("/packs/samsara/M4/complete?seed=7&mine=1").status_code == 200  # visitor

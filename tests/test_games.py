"""Game vocabularies and row parsing, as pure tables (no database)."""

from typing import Any

import pytest

from catalog.games import GAMES, get_game
from catalog.games.base import FieldError, RowErrors, UnknownRuleKind
from catalog.games.keyforge import KEYFORGE
from catalog.games.keyforge.vocabulary import parse_keyword as kf_keyword
from catalog.games.longzhiyi import LONGZHIYI
from catalog.games.samsara import SAMSARA
from catalog.games.samsara.vocabulary import ATTRIBUTES, parse_cost, parse_keyword
from catalog.games.zhutian import ZHUTIAN


def test_registry_has_the_four_games() -> None:
    assert list(GAMES) == ["samsara", "longzhiyi", "zhutian", "keyforge"]
    assert get_game("永恒之轮") is SAMSARA
    assert get_game("龙之弈") is LONGZHIYI
    assert get_game("诛天") is ZHUTIAN
    assert get_game("keyforge") is KEYFORGE
    assert get_game("万智牌") is None


@pytest.mark.parametrize(
    ("word", "canonical"),
    [
        ("火", "火"),
        ("红", "火"),
        ("紅", "火"),
        ("fire", "火"),
        ("Fire", "火"),
        ("黑", "无"),
        ("無", "无"),
        ("風", "风"),
        ("绿", "风"),
        ("紫", "暗"),
        ("white", "光"),
    ],
)
def test_samsara_attribute_synonyms(word: str, canonical: str) -> None:
    assert ATTRIBUTES.resolve(word) == canonical


@pytest.mark.parametrize(
    ("game", "word", "canonical"),
    [
        (SAMSARA, "戰魂", "战魂"),
        (SAMSARA, "soul", "战魂"),
        (SAMSARA, "載具", "载具"),
        (LONGZHIYI, "宝物", "寶物"),
        (LONGZHIYI, "法术", "法術"),
        (ZHUTIAN, "装备", "裝備"),
        (ZHUTIAN, "术法", "術法"),
        (KEYFORGE, "creature", "生物"),
        (KEYFORGE, "行動", "行动"),
    ],
)
def test_types_accept_both_scripts_and_english(game: Any, word: str, canonical: str) -> None:
    assert game.types.resolve(word) == canonical


@pytest.mark.parametrize(
    ("game", "low", "high"),
    [
        (SAMSARA, "C", "SR"),
        (SAMSARA, "R", "PR"),
        (SAMSARA, "PR", "UR"),
        (SAMSARA, "UR", "SR"),
        (LONGZHIYI, "1", "5"),
        (KEYFORGE, "Common", "Uncommon"),
        (KEYFORGE, "Rare", "Special"),
        (ZHUTIAN, "U", "R"),
    ],
)
def test_rarity_ladders_rank(game: Any, low: str, high: str) -> None:
    assert game.rarity.rank(low) < game.rarity.rank(high)


@pytest.mark.parametrize(
    ("game", "word", "code"),
    [
        (LONGZHIYI, "★★★", "3"),
        (LONGZHIYI, "五星", "5"),
        (KEYFORGE, "FIXED", "Special"),
        (KEYFORGE, "Variant", "Special"),
        (KEYFORGE, "稀有", "Rare"),
        (ZHUTIAN, "罕見", "U"),
    ],
)
def test_rarity_synonyms(game: Any, word: str, code: str) -> None:
    assert game.rarity.resolve(word) == code


@pytest.mark.parametrize(
    ("raw", "cost", "total"),
    [
        ("2火2无", {"火": 2, "无": 2}, 4),
        ("2红2黑", {"火": 2, "无": 2}, 4),
        ("3", {"无": 3}, 3),
        ("0", {}, 0),
        ("1水1风1无", {"水": 1, "风": 1, "无": 1}, 3),
        ("火火", {"火": 2}, 2),
        ("１２光", {"光": 12}, 12),
    ],
)
def test_samsara_cost(raw: str, cost: dict[str, int], total: int) -> None:
    assert parse_cost(raw) == (cost, total)


@pytest.mark.parametrize("raw", ["火2", "2x", "2火-", "abc", "2 火 and"])
def test_samsara_malformed_cost(raw: str) -> None:
    with pytest.raises(FieldError) as error:
        parse_cost(raw)
    assert raw in error.value.message.zh


@pytest.mark.parametrize(
    ("raw", "kind", "value", "subject", "label"),
    [
        ("军团(5)", "legion", 5, None, "军团(5)"),
        ("軍團（4）", "legion", 4, None, "军团(4)"),
        ("护盾(2)", "shield", 2, None, "护盾(2)"),
        ("魔抗(3)", "magic_resistance", 3, None, "魔法抗性(3)"),
        ("『童话』限定", "restricted", None, "童话", "『童话』限定"),
        ("「童话」限定", "restricted", None, "童话", "『童话』限定"),
        ("『星武装机』载具(2)", "carrier", 2, "星武装机", "『星武装机』载具(2)"),
        ("『悟空』唯一", "name_unique", None, "悟空", "『悟空』唯一"),
        ("变幻『小红帽』", "transform", None, "小红帽", "变幻『小红帽』"),
        ("额外构筑", "extra_build", None, None, "额外构筑"),
        ("場上唯一", "unique", None, None, "场上唯一"),
        ("飞翔", "flying", None, None, "飞翔"),
        ("埋伏", "ambush", None, None, "埋伏"),
    ],
)
def test_samsara_keywords(raw: str, kind: str, value: int | None, subject: str | None, label: str) -> None:
    assert parse_keyword(raw) == {"kind": kind, "value": value, "subject": subject, "label": label}


@pytest.mark.parametrize("raw", ["军团", "飞行", "『A』载具", "护盾(x)", "『童话』限定(2)"])
def test_samsara_bad_keywords(raw: str) -> None:
    with pytest.raises(FieldError):
        parse_keyword(raw)


@pytest.mark.parametrize(
    ("raw", "label"),
    [("assault:2", "突击(2)"), ("assault(2)", "突击(2)"), ("elusive", "闪避"), ("危险(5)", "危险(5)")],
)
def test_keyforge_keywords(raw: str, label: str) -> None:
    assert kf_keyword(raw)["label"] == label


def _row(**values: str) -> dict[str, str]:
    base = {"set": "M4", "number": "M4-001", "name": "测试战魂", "rarity": "C", "type": "战魂", "text": ""}
    base.update(values)
    return base


def test_samsara_row_is_parsed_into_structured_fields() -> None:
    parsed = SAMSARA.parse_row(
        _row(
            attribute="光暗", cost="2光1暗1无", attack="3", defense="4", traits="英灵|圆桌骑士", keywords="飞翔|军团(5)"
        )
    )
    card = parsed.card
    assert card["attributes"] == ["光", "暗"]
    assert card["cost"] == {"光": 2, "暗": 1, "无": 1}
    assert card["cost_total"] == 4
    assert (card["attack"], card["defense"]) == (3, 4)
    assert card["traits"] == ["英灵", "圆桌骑士"]
    assert [k["kind"] for k in card["keywords"]] == ["flying", "legion"]
    assert parsed.printing["rarity"] == "C"


def test_samsara_row_reports_every_bad_cell_at_once() -> None:
    with pytest.raises(RowErrors) as error:
        SAMSARA.parse_row(_row(rarity="XR", type="怪兽", attribute="金", cost="2x", keywords="军团"))
    columns = sorted(e.column for e in error.value.errors)
    assert columns == ["attribute", "cost", "keywords", "rarity", "type"]


@pytest.mark.parametrize(
    ("values", "column"),
    [
        ({"type": "魔法", "attack": "3"}, "attack"),
        ({"type": "法力石", "cost": "1火"}, "cost"),
        ({"attack": "-1"}, "attack"),
        ({"defense": "三"}, "defense"),
    ],
)
def test_samsara_field_rules(values: dict[str, str], column: str) -> None:
    with pytest.raises(RowErrors) as error:
        SAMSARA.parse_row(_row(**values))
    assert [e.column for e in error.value.errors] == [column]


def test_longzhiyi_weapon_needs_a_colour() -> None:
    row = {"set": "LZ1", "number": "LZ1-001", "name": "劍", "rarity": "3", "type": "武器", "text": ""}
    with pytest.raises(RowErrors):
        LONGZHIYI.parse_row(row)
    parsed = LONGZHIYI.parse_row({**row, "color": "紅綠", "level": "1", "cost": "0"})
    assert parsed.card["attributes"] == ["紅", "綠"]


def test_zhutian_restriction_sets_copy_limit() -> None:
    row = {
        "set": "ZT1",
        "number": "ZT1-001",
        "name": "虎爺",
        "rarity": "R",
        "type": "活物",
        "text": "",
        "restriction": "准限制",
        "level": "3",
        "faction": "仙道士",
    }
    parsed = ZHUTIAN.parse_row(row)
    assert parsed.card["extra"] == {"restriction": "準限制", "copy_limit": 2}
    assert parsed.card["faction"] == "仙道士"
    with pytest.raises(RowErrors):
        ZHUTIAN.parse_row({**row, "level": "10"})


def test_keyforge_non_creature_power_zero_is_no_power() -> None:
    row = {
        "set": "SMP",
        "number": "SMP-001",
        "name": "怒火",
        "rarity": "Common",
        "type": "action",
        "text": "",
        "house": "brobnar",
        "power": "0",
        "amber": "1",
    }
    parsed = KEYFORGE.parse_row(row)
    assert parsed.card["attack"] is None
    assert parsed.card["faction"] == "布罗布纳"
    assert parsed.card["extra"] == {"amber": 1}


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_every_rule_kind_of_every_game_has_rules(slug: str) -> None:
    """A kind without rules would pass every deck as legal: each game assembles all of its kinds."""
    game = GAMES[slug]
    assert game.rule_kinds, f"{slug} declares no rule kind"
    assert set(game.rule_sets) == set(game.rule_kinds)
    for kind in game.rule_kinds:
        rules = game.rule_set(kind)
        assert rules, f"{slug} rule kind {kind} has no rules"
        assert {"banned", "legal_sets"} <= {rule.name for rule in rules}  # the shared rules, in every kind


def test_an_unknown_rule_kind_is_an_error_not_an_empty_rule_set() -> None:
    with pytest.raises(UnknownRuleKind, match="samsara has no rules for the rule kind 'archon'"):
        SAMSARA.rule_set("archon")


@pytest.mark.parametrize(
    ("game", "field", "page", "face"),
    [
        (SAMSARA, "attack", "攻击力", "攻"),
        (SAMSARA, "level", "等级", "等级"),
        (LONGZHIYI, "attributes", "颜色", "顏色"),
        (ZHUTIAN, "level", "等级", "等級"),
        (ZHUTIAN, "faction", "职业", "職業"),
        # one word for KeyForge power on its pages and its card faces
        (KEYFORGE, "attack", "战斗力", "战斗力"),
        (KEYFORGE, "defense", "护甲", "护甲"),
    ],
)
def test_field_words_come_from_the_game(game: Any, field: str, page: str, face: str) -> None:
    assert game.labels()[field] == page
    assert game.face_label(field) == face

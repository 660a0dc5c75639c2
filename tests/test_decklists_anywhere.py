"""decklists pasted from anywhere — MTG Arena (headers without a colon, About /
Name metadata), MTGO (a blank line before the sideboard), bullets, × / x counts on either side,
.ydk (#main / #extra / !side), Chinese headers without a colon — mapped to our sections; a line
that looks like a header but is not one is reported as such. The four pasted formats give the
same verdict as the plain list (both databases)."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.decks.check import check_decklist
from catalog.decks.lists import DecklistError, add_card, parse_decklist
from tests.kits.deck import legal_samsara_list


def _sections(text: str) -> list[tuple[str, int, str]]:
    return [(line.section, line.count, line.name) for line in parse_decklist(text).lines]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # MTG Arena: About / Name, Deck, Sideboard without a colon
        (
            "About\nName 圆桌速攻\n\nDeck\n3 亚瑟王\n\nSideboard\n2 小红帽\n",
            [("main", 3, "亚瑟王"), ("side", 2, "小红帽")],
        ),
        (
            "Commander\n1 亚瑟王\n\nDeck\n3 小红帽\n\nCompanion\n1 灰姑娘\n",
            [("main", 1, "亚瑟王"), ("main", 3, "小红帽"), ("side", 1, "灰姑娘")],
        ),
        # MTGO: a blank line before the trailing group, no header at all
        ("3 亚瑟王\n2 小红帽\n\n1 灰姑娘\n", [("main", 3, "亚瑟王"), ("main", 2, "小红帽"), ("side", 1, "灰姑娘")]),
        # bullets and × / x counts on either side
        (
            "• 3 亚瑟王\n1 • 小红帽\n- 2 灰姑娘\n亚瑟王 ×2\n×2 小红帽\nx3 灰姑娘\n灰姑娘 x 1\n",
            [
                ("main", 3, "亚瑟王"),
                ("main", 1, "小红帽"),
                ("main", 2, "灰姑娘"),
                ("main", 2, "亚瑟王"),
                ("main", 2, "小红帽"),
                ("main", 3, "灰姑娘"),
                ("main", 1, "灰姑娘"),
            ],
        ),
        # .ydk: one line per copy, #main / #extra / !side, other # lines are comments
        (
            "#created by someone\n#main\n亚瑟王\n亚瑟王\n#extra\n火之法力石\n!side\n小红帽\n",
            [
                ("main", 1, "亚瑟王"),
                ("main", 1, "亚瑟王"),
                ("extra", 1, "火之法力石"),
                ("side", 1, "小红帽"),
            ],
        ),
        # Chinese headers without a colon, with a count in brackets
        (
            "主卡组（3）\n3 亚瑟王\n额外卡组\n2 火之法力石\n备牌 (1)\n1 小红帽\n",
            [
                ("main", 3, "亚瑟王"),
                ("extra", 2, "火之法力石"),
                ("side", 1, "小红帽"),
            ],
        ),
        # with headers, a blank line means nothing
        ("主卡组:\n3 亚瑟王\n\n2 小红帽\n", [("main", 3, "亚瑟王"), ("main", 2, "小红帽")]),
        # three groups without headers: not MTGO, all main
        ("3 亚瑟王\n\n2 小红帽\n\n1 灰姑娘\n", [("main", 3, "亚瑟王"), ("main", 2, "小红帽"), ("main", 1, "灰姑娘")]),
    ],
)
def test_pasted_forms_map_to_our_sections(text: str, expected: list[tuple[str, int, str]]) -> None:
    assert _sections(text) == expected


def test_arena_about_block_gives_the_name() -> None:
    assert parse_decklist("About\nName 圆桌速攻\n\nDeck\n3 亚瑟王\n").name == "圆桌速攻"


@pytest.mark.parametrize("line", ["Maybeboard", "Creatures (20)", "Tokens:", "杂项:", "Considering (3)"])
def test_a_header_looking_line_is_reported_as_a_header_not_a_card(line: str) -> None:
    with pytest.raises(DecklistError) as caught:
        parse_decklist(f"3 亚瑟王\n{line}\n1 小红帽\n")
    assert "看起来是分区标题" in caught.value.message.zh or "未知的分区" in caught.value.message.zh
    assert caught.value.problems[0].line == 2


def test_adding_a_card_finds_a_header_without_a_colon() -> None:
    text = add_card("Deck\n3 亚瑟王\n\nSideboard\n1 灰姑娘\n", "小红帽", 1, "side")
    assert _sections(text)[-1] == ("side", 1, "小红帽") and "备牌:" not in text


def _verdict(engine: Engine, text: str) -> tuple:
    with Session(engine) as session:
        verdict = check_decklist(session=session, text=text, game="samsara", format_code="standard").verdict
    return verdict.legal, verdict.counts, sorted((v.code, tuple(v.cards)) for v in verdict.violations)


def _parts(engine: Engine) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    plain = legal_samsara_list(engine)
    main_text, _sep, extra_text = plain.split("主卡组:\n", 1)[1].partition("额外卡组:\n")
    main = [(int(c), n) for c, n in (line.split(" ", 1) for line in main_text.splitlines())]
    extra = [(int(c), n) for c, n in (line.split(" ", 1) for line in extra_text.splitlines())]
    return main, extra


def test_the_four_pasted_formats_give_the_plain_lists_verdict(sample_catalogue: Engine) -> None:
    main, extra = _parts(sample_catalogue)
    side = [main[-1]]
    main = main[:-1]

    def block(rows: list[tuple[int, str]], fmt: str = "{c} {n}") -> str:
        return "".join(fmt.format(c=c, n=n) + "\n" for c, n in rows)

    plain = f"名称: 样例\n主卡组:\n{block(main)}额外卡组:\n{block(extra)}备牌:\n{block(side)}"
    expected = _verdict(sample_catalogue, plain)
    arena = f"About\nName 样例\n\nDeck\n{block(main)}\nExtra\n{block(extra)}\nSideboard\n{block(side)}"
    bullets = f"主卡组\n{block(main, '• {c} {n}')}额外卡组\n{block(extra, '{n} ×{c}')}备牌\n{block(side, '- x{c} {n}')}"
    ydk = "#created by 轮藏\n#main\n" + "".join(f"{n}\n" * c for c, n in main)
    ydk += "#extra\n" + "".join(f"{n}\n" * c for c, n in extra) + "!side\n" + "".join(f"{n}\n" * c for c, n in side)
    for text in (arena, bullets, ydk):
        assert _verdict(sample_catalogue, text) == expected, text
    # MTGO has no extra deck: its main deck, a blank line, the sideboard = the plain list without extra
    plain_no_extra = f"主卡组:\n{block(main)}备牌:\n{block(side)}"
    mtgo = f"{block(main)}\n{block(side)}"
    assert _verdict(sample_catalogue, mtgo) == _verdict(sample_catalogue, plain_no_extra)
    assert expected[1] == {"main": sum(c for c, _n in main), "extra": sum(c for c, _n in extra), "side": 3}

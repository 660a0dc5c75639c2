"""Matching: two-sided coverage over public lists, want − owned, printing-specific
wants, worst acceptable condition, keep-N, held copies; the balance in points or prices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.wants import mark_extras_for_trade, set_want
from catalog.models import Printing, User
from catalog.trading import LineSpec, propose
from catalog.trading.balance import PriceListError, balance_of, import_prices
from catalog.trading.matching import find_matches
from tests.kits.trade import NOW, Kit, make_kit, tx

HP = ItemGrade("HP")


@pytest.fixture
def kit(engine: Engine, make_user: Any, tmp_path: Path) -> Kit:
    return make_kit(engine, make_user, tmp_path, names=("alice", "bob", "carol", "dave"))


def want(
    kit: Kit,
    who: str,
    number: str,
    quantity: int = 1,
    worst: str = "MP",
    printing: bool = False,
    language: str | None = None,
    finish: str | None = None,
) -> None:
    with tx(kit.engine) as session:
        card_id = session.get(Printing, kit.pids[number]).card_id
        set_want(
            session=session,
            user_id=kit.users[who],
            card_id=card_id,
            printing_id=kit.pids[number] if printing else None,
            quantity=quantity,
            min_condition=worst,
            language=language,
            finish=finish,
            now=NOW,
        )


def matches(kit: Kit, who: str = "alice") -> dict[str, tuple[int, int]]:
    with Session(kit.engine) as session:
        found = find_matches(session=session, user_id=kit.users[who], now=NOW)
        return {m.username: (m.they_give_count, m.i_give_count) for m in found}


def test_two_sided_partners_rank_first_and_want_minus_owned_counts(kit: Kit) -> None:
    want(kit, "alice", "T1-002", quantity=3)
    kit.stock("alice", "T1-002", 1, 0)  # alice owns one: still misses two
    kit.stock("bob", "T1-002", 5, 5)
    kit.stock("carol", "T1-002", 1, 1)
    kit.stock("alice", "T1-003", 2, 2)
    want(kit, "carol", "T1-003", quantity=1)
    found = matches(kit)
    assert found == {"bob": (2, 0), "carol": (1, 1)}
    with Session(kit.engine) as session:
        order = [m.username for m in find_matches(session=session, user_id=kit.users["alice"], now=NOW)]
    assert order == ["carol", "bob"]  # min(1, 1) = 1 beats min(2, 0) = 0


def test_private_lists_condition_printing_keep_n_and_holds(kit: Kit) -> None:
    want(kit, "alice", "T1-001", quantity=2, worst="LP", printing=True)  # T1-001 exactly, LP or better
    kit.stock("bob", "T2-001", 3, 3)  # the reprint: not the printing alice wants
    kit.stock("carol", "T1-001", 2, 2, grade=HP)  # too worn
    kit.stock("dave", "T1-001", 3, 3)
    assert matches(kit) == {"dave": (2, 0)}
    with tx(kit.engine) as session:  # dave keeps 2 of each C: only one spare
        mark_extras_for_trade(session=session, user_id=kit.users["dave"], game="samsara", keep={"C": 2}, now=NOW)
    assert matches(kit) == {"dave": (1, 0)}
    with tx(kit.engine) as session:  # dave's spare is held by his offer to bob
        propose(
            session=session,
            proposer_id=kit.users["dave"],
            recipient_id=kit.users["bob"],
            give=[kit.line("T1-001")],
            get=[],
            now=NOW,
        )
    assert matches(kit) == {}
    kit.stock("bob", "T1-001", 1, 1)
    assert matches(kit) == {"bob": (1, 0)}
    with tx(kit.engine) as session:
        user = session.get(User, kit.users["bob"])
        assert user is not None
        user.lists_public = False
        session.add(user)
    assert matches(kit) == {}


def keep_rules(kit: Kit, who: str, rules: dict[str, dict[str, int]]) -> None:
    with tx(kit.engine) as session:
        user = session.get(User, kit.users[who])
        assert user is not None
        user.keep_rules = rules
        session.add(user)


def test_keep_n_offers_the_worst_copies_and_only_for_its_own_rarity(kit: Kit) -> None:
    want(kit, "alice", "T1-001", quantity=2, worst="LP")
    kit.stock("dave", "T1-001", 1, 1)  # NM
    kit.stock("dave", "T1-001", 1, 1, grade=ItemGrade("MP"))
    assert matches(kit) == {"dave": (1, 0)}  # the MP copy is worse than alice accepts
    keep_rules(kit, "dave", {"samsara": {"R": 1}, "longzhiyi": {"C": 2}})  # other rarity, other game
    assert matches(kit) == {"dave": (1, 0)}
    keep_rules(kit, "dave", {"samsara": {"C": 1}})  # one spare, and the keep rule offers the MP one
    assert matches(kit) == {}
    want(kit, "alice", "T1-001", quantity=2, worst="MP")
    assert matches(kit) == {"dave": (1, 0)}


# A want for 闪 in English ("language/finish when the want says so") against one
# partner copy in each grade: only an English foil covers it; a want naming neither takes any.
@pytest.mark.parametrize(
    ("language", "finish", "have", "covered"),
    [
        ("EN", "闪", ItemGrade("NM", "EN", "闪"), 1),
        ("EN", "闪", ItemGrade("LP", "EN", "闪"), 1),
        ("EN", "闪", ItemGrade("NM", "EN", "普通"), 0),
        ("EN", "闪", ItemGrade("NM", "简中", "闪"), 0),
        ("EN", "闪", ItemGrade("NM", "日", "普通"), 0),
        ("EN", "闪", ItemGrade("HP", "EN", "闪"), 0),  # the condition still counts
        ("EN", None, ItemGrade("NM", "EN", "普通"), 1),
        ("EN", None, ItemGrade("NM", "繁中", "闪"), 0),
        (None, "闪", ItemGrade("NM", "日", "闪"), 1),
        (None, "闪", ItemGrade("NM", "日", "普通"), 0),
        (None, None, ItemGrade("NM", "日", "普通"), 1),
        (None, None, ItemGrade("MP", "繁中", "闪"), 1),
    ],
)
def test_a_want_naming_language_or_finish_matches_only_such_copies(
    kit: Kit, language: str | None, finish: str | None, have: ItemGrade, covered: int
) -> None:
    want(kit, "alice", "T1-002", quantity=1, language=language, finish=finish)
    kit.stock("bob", "T1-002", 1, 1, grade=have)
    assert matches(kit) == ({"bob": (1, 0)} if covered else {})
    # the other way round: bob's want, alice's copy
    want(kit, "carol", "T1-003", quantity=1, language=language, finish=finish)
    kit.stock("alice", "T1-003", 1, 1, grade=have)
    assert matches(kit, "alice").get("carol", (0, 0))[1] == covered


def test_an_owned_copy_in_another_finish_does_not_cover_a_foil_want(kit: Kit) -> None:
    want(kit, "alice", "T1-002", quantity=1, finish="闪")
    kit.stock("alice", "T1-002", 2, 0)  # two 普通 copies: the 闪 is still missing
    kit.stock("bob", "T1-002", 1, 1, grade=ItemGrade("NM", "简中", "闪"))
    assert matches(kit) == {"bob": (1, 0)}
    kit.stock("alice", "T1-002", 1, 0, grade=ItemGrade("NM", "EN", "闪"))  # now owned
    assert matches(kit) == {}
    want(kit, "alice", "T1-002", quantity=2, language="EN", finish="闪", printing=True)  # T1-002 exactly, 2
    assert matches(kit) == {}  # bob's foil is 简中
    kit.stock("dave", "T1-002", 3, 3, grade=ItemGrade("LP", "EN", "闪"))
    assert matches(kit) == {"dave": (1, 0)}  # one owned, one missing


def test_balance_in_rarity_points_or_the_viewers_prices(kit: Kit) -> None:
    sides = {1: [(kit.pids["T1-001"], 2)], 2: [(kit.pids["T1-007"], 1)]}  # 2 × C vs 1 × SR
    with Session(kit.engine) as session:
        points = balance_of(session=session, viewer_id=kit.users["alice"], sides=sides)
    assert (points.unit, points.sides) == ("points", {1: 2.0, 2: 16.0})
    with tx(kit.engine) as session:
        assert (
            import_prices(session=session, user_id=kit.users["alice"], data=b"set,number,price\nT1,T1-001,3.5\n") == 1
        )
    with Session(kit.engine) as session:
        prices = balance_of(session=session, viewer_id=kit.users["alice"], sides=sides)
    assert (prices.unit, prices.sides, prices.unpriced) == ("price", {1: 7.0, 2: 0.0}, {1: 0, 2: 1})


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"set,number\nT1,T1-001\n", "表头"),
        (b"set,number,price\nT1,T1-001,-1\n", "第 2 行 price"),
        (b"set,number,price\nT1,T1-001,1\nT1,T9-999,2\n", "第 3 行 number"),
    ],
)
def test_a_bad_price_list_is_refused_whole(kit: Kit, data: bytes, words: str) -> None:
    with pytest.raises(PriceListError) as refused, tx(kit.engine) as session:
        import_prices(session=session, user_id=kit.users["alice"], data=data)
    assert words in refused.value.message.zh


@pytest.mark.parametrize(
    ("language", "finish", "words"),
    [
        ("火星文", None, "未知的语言「火星文」"),
        (None, "镭射", "未知的工艺「镭射」"),
        ("EN", "foil!", "未知的工艺「foil!」"),
    ],
)
def test_set_want_refuses_an_unknown_language_or_finish_and_writes_nothing(
    kit: Kit, language: str | None, finish: str | None, words: str
) -> None:
    from catalog.collection.wants import WantError, list_wants

    with pytest.raises(WantError) as refused:
        want(kit, "alice", "T1-002", language=language, finish=finish)
    assert words in refused.value.message.zh and "可用" in refused.value.message.zh
    with Session(kit.engine) as session:
        assert list_wants(session=session, user_id=kit.users["alice"]) == []


def test_set_want_reads_aliases_and_list_wants_shows_them(kit: Kit) -> None:
    from catalog.collection.wants import list_wants

    want(kit, "alice", "T1-002", quantity=2, language="English", finish="foil")
    kit.stock("alice", "T1-002", 5, 0)  # 简中 普通: none of them count
    kit.stock("alice", "T1-002", 1, 0, grade=ItemGrade("DMG", "EN", "闪"))  # any condition counts as owned
    with Session(kit.engine) as session:
        (row,) = list_wants(session=session, user_id=kit.users["alice"])
    assert (row.language, row.finish, row.owned, row.missing) == ("EN", "闪", 1, 1)


# find_matches ranks partners by an upper bound first and works out the exact coverage only for
# the best candidates (the matching benchmark). Against the exact coverage of every public user,
# on random lists where the bounds are loose (worn or foreign copies, printing-specific wants,
# owned copies, keep-N, held copies, private users), the shown partners must be the same, in
# the same order, with the same lines, for every limit.
CONDITIONS_ = ("NM", "LP", "MP", "HP")
GRADES = [ItemGrade(c, lang, fin) for c in CONDITIONS_ for lang in ("简中", "EN") for fin in ("普通", "闪")]
MANY = tuple(f"p{i:02d}" for i in range(14))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bounded_ranking_shows_what_exact_coverage_of_everyone_shows(
    engine: Engine, make_user: Any, tmp_path: Path, seed: int
) -> None:
    import random

    from catalog.trading.matching import MAX_PARTNERS, _exact, _index, _sorted, _tradable, _wants

    rng = random.Random(seed)
    kit = make_kit(engine, make_user, tmp_path, names=MANY)
    numbers = sorted(kit.pids)
    for who in MANY:
        for number in rng.sample(numbers, 4):
            quantity = rng.randint(1, 4)
            kit.stock(who, number, quantity, rng.randint(0, quantity), grade=rng.choice(GRADES))
        for number in rng.sample(numbers, 3):
            want(
                kit,
                who,
                number,
                quantity=rng.randint(1, 3),
                worst=rng.choice(CONDITIONS_),
                printing=rng.random() < 0.3,
                language=rng.choice([None, None, "EN"]),
                finish=rng.choice([None, None, "闪"]),
            )
        if rng.random() < 0.3:
            keep_rules(kit, who, {"samsara": {rarity: rng.randint(0, 2) for rarity in ("C", "R", "SR")}})
    for _ in range(3):  # offers hold copies
        giver, taker = rng.sample(MANY, 2)
        with Session(kit.engine) as session:
            mine = _tradable(session, user_id=kit.users[giver], card_ids=set(range(1, 100)), now=NOW)
        copies = mine.get(kit.users[giver], [])
        if copies:
            copy = rng.choice(copies)
            with tx(kit.engine) as session:
                propose(
                    session=session,
                    proposer_id=kit.users[giver],
                    recipient_id=kit.users[taker],
                    give=[LineSpec(copy.printing_id, copy.grade, 1)],
                    get=[],
                    now=NOW,
                )
    with tx(kit.engine) as session:
        private = session.get(User, kit.users[MANY[-1]])
        assert private is not None
        private.lists_public = False
        session.add(private)

    def shown(found: list[Any]) -> list[tuple[str, list[LineSpec], list[LineSpec]]]:
        return [(m.username, _sorted(m.they_give), _sorted(m.i_give)) for m in found]

    checked = 0
    for who in MANY[:-1]:
        me = kit.users[who]
        with Session(kit.engine) as session:
            my_wants = _wants(session, user_id=me).get(me, {})
            my_copies = _tradable(session, user_id=me, card_ids=set(range(1, 100)), now=NOW).get(me, [])
            everyone = [kit.users[u] for u in MANY[:-1] if u != who]
            exact = sorted(_exact(session, me, everyone, my_wants, _index(my_copies), NOW), key=lambda m: m.rank_key)
            for limit in (1, 2, 3, 5, MAX_PARTNERS):
                assert shown(find_matches(session=session, user_id=me, now=NOW, limit=limit)) == shown(exact[:limit])
        checked += len(exact)
    assert checked > 20  # the random lists really overlap

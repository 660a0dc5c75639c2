"""Want list, have list with the keep-N rule, public profiles and the collection buttons on the
card and search pages, through the web app."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import event, func, select
from sqlmodel import Session

from catalog.accounts import username_key
from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import adjust, set_for_trade, set_note
from catalog.models import Card, CollectionItem, User, WantItem
from tests.kits.collection import NOW, owned, printing_id
from tests.kits.wants import add_want, card_id, engine_of, give, wants_of
from webapp.db import get_engine

HP = ItemGrade("HP")


def _plain(html: str) -> str:
    """The page without the phone layout's cell labels and .stack class, so the
    assertions below read the cells as before."""
    return re.sub(r' data-label="[^"]*"', "", html).replace(' stack"', '"')


def want_id_of(client: Any, user_id: int) -> int:
    with Session(engine_of(client)) as session:
        found = session.scalar(select(WantItem.id).where(WantItem.user_id == user_id))
        assert found is not None
        return found


# ---- access --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/wants"),
        ("post", "/wants"),
        ("post", "/wants/1"),
        ("post", "/wants/1/delete"),
        ("get", "/haves"),
        ("post", "/haves/keep"),
    ],
)
def test_anonymous_visitors_are_sent_to_sign_in(sample_app: Any, method: str, path: str) -> None:
    response = getattr(sample_app.test_client(), method)(path)
    assert response.status_code == 302
    assert "/login?next=" in response.headers["Location"]


# ---- want list -------------------------------------------------------------------------------


def test_card_page_offers_the_want_form_to_signed_in_users(sample_app: Any, client: Any, login: Any) -> None:
    anonymous = client.get("/cards/samsara/小红帽·森林歌者").get_data(as_text=True)
    assert 'action="/wants"' not in anonymous and "加入需求列表" not in anonymous
    login(client, "alice")
    page = client.get("/cards/samsara/小红帽·森林歌者").get_data(as_text=True)
    form = re.search(r'<form class="inline-form want-form" method="post" action="/wants">(.*?)</form>', page, re.S)
    assert form, "no want form"
    body = form.group(1)
    assert 'name="csrf_token"' in body and 'name="card_id"' in body and 'name="quantity"' in body
    assert '<option value="">任意印刷</option>' in body
    with Session(engine_of(client)) as session:
        pid = printing_id(session, "M4", "M4-001")
    assert f'<option value="{pid}">M4 M4-001</option>' in body
    assert '<option value="MP" selected>' in body  # the default worst condition


def test_want_any_printing_or_one_printing_then_edit_and_remove(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    give(client, alice.id, "M4", "M4-001", 1)
    with Session(engine_of(client)) as session:
        cid = card_id(session, "小红帽·森林歌者")
        pid = printing_id(session, "M4", "M4-001")

    response = add_want(client, next="/cards/samsara/x?y=1")
    assert response.status_code == 302 and response.headers["Location"] == "/cards/samsara/x?y=1"
    assert add_want(client, printing_id=pid, quantity=1, min_condition="NM").status_code == 302
    assert wants_of(client, alice.id) == [(cid, None, 2, "LP"), (cid, pid, 1, "NM")]
    assert add_want(client, quantity=4).status_code == 302  # the same want again: replaced, not doubled
    assert wants_of(client, alice.id)[0] == (cid, None, 4, "LP")

    page = _plain(client.get("/wants").get_data(as_text=True))
    assert page.count('class="inline-form want-edit"') == 2
    assert "任意印刷" in page and "M4-001" in page
    rows = re.findall(r'<tr id="want-(\d+)">(.*?)</tr>', page, re.S)
    assert len(rows) == 2
    assert all('<td class="num">1</td>' in row for _id, row in rows)  # owned: 1 copy of the card

    first = int(rows[0][0])
    assert client.post(f"/wants/{first}", data={"quantity": 3, "min_condition": "HP"}).status_code == 302
    assert wants_of(client, alice.id)[0] == (cid, None, 3, "HP")
    assert client.post(f"/wants/{first}", data={"quantity": 0, "min_condition": "HP"}).status_code == 302
    assert wants_of(client, alice.id) == [(cid, pid, 1, "NM")]
    second = int(rows[1][0])
    assert client.post(f"/wants/{second}/delete").status_code == 302
    assert wants_of(client, alice.id) == []
    assert "需求列表是空的" in client.get("/wants").get_data(as_text=True)


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"quantity": "两张"}, "请填写整数数量"),
        ({"quantity": "0"}, "想要的数量至少是 1"),
        ({"quantity": "1001"}, "想要的数量必须在 0 到 1000 之间"),
        ({"min_condition": "崭新"}, "未知的品相「崭新」"),
        ({"language": "火星文"}, "未知的语言「火星文」"),
        ({"finish": "镭射"}, "未知的工艺「镭射」"),
    ],
)
def test_bad_want_input_is_explained_and_changes_nothing(
    sample_app: Any, client: Any, login: Any, form: dict[str, str], message: str
) -> None:
    alice = login(client, "alice")
    response = add_want(client, **form)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert wants_of(client, alice.id) == []


def test_a_printing_of_another_card_is_refused(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    with Session(engine_of(client)) as session:
        other = printing_id(session, "M4", "M4-002")
    assert add_want(client, printing_id=other).status_code == 404
    assert wants_of(client, alice.id) == []


def test_another_users_want_cannot_be_changed_or_removed(sample_app: Any, login: Any) -> None:
    alice_client, bob_client = sample_app.test_client(), sample_app.test_client()
    alice = login(alice_client, "alice")
    login(bob_client, "bob")
    add_want(alice_client)
    want = want_id_of(alice_client, alice.id)
    before = wants_of(alice_client, alice.id)
    assert bob_client.post(f"/wants/{want}", data={"quantity": 9, "min_condition": "NM"}).status_code == 404
    assert bob_client.post(f"/wants/{want}/delete").status_code == 404
    assert wants_of(alice_client, alice.id) == before
    assert "小红帽" not in bob_client.get("/wants").get_data(as_text=True).split("<main", 1)[1]


# ---- have list and keep N --------------------------------------------------------------------


def test_keep_n_per_rarity_marks_the_extras_worst_condition_first(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client, "alice")
    common = give(client, alice.id, "M4", "M4-001", 5)  # C
    give(client, alice.id, "M4", "M4-001", 2, HP)
    rare = give(client, alice.id, "M4", "M4-002", 1)  # R
    page = client.get("/haves").get_data(as_text=True)
    assert "还没有可交换的卡" in page
    assert 'name="keep-C"' in page and 'name="keep-SR"' in page  # samsara's rarity ladder

    response = client.post("/haves/keep", data={"game": "samsara", "keep-C": "2", "keep-R": "1", "keep-UR": ""})
    assert response.status_code == 302
    with Session(engine_of(client)) as session:
        assert owned(session, alice.id, common, HP) == (2, 2)  # the worst copies go first
        assert owned(session, alice.id, common) == (5, 3)
        assert owned(session, alice.id, rare) == (1, 0)
        user = session.get(User, alice.id)
        assert user is not None and user.keep_rules == {"samsara": {"C": 2, "R": 1}}
    page = client.get("/haves").get_data(as_text=True)
    assert "已更新" in page and "现在共有 5 张可交换" in page  # the flash after the redirect
    assert re.search(r'name="keep-C" [^>]*value="2"', page) and re.search(r'name="keep-R" [^>]*value="1"', page)
    assert re.search(r'name="keep-UR" [^>]*value=""', page)
    haves = _plain(page).split('class="trade-list haves"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert haves.count("<tr>") == 2 and "小红帽·森林歌者" in haves and "小红帽·狼猎手" not in haves

    # Keeping more takes copies back off the have list.
    assert client.post("/haves/keep", data={"game": "samsara", "keep-C": "7"}).status_code == 302
    with Session(engine_of(client)) as session:
        assert owned(session, alice.id, common, HP) == (2, 0) and owned(session, alice.id, common) == (5, 0)


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"game": "chess", "keep-C": "1"}, "请选择游戏"),
        ({"game": "samsara"}, "请至少填写一个稀有度的保留数量"),
        ({"game": "samsara", "keep-C": "-1"}, "保留数量必须是 0 到 1000 之间的整数（C）"),
        ({"game": "samsara", "keep-C": "二"}, "保留数量必须是 0 到 1000 之间的整数（C）"),
    ],
)
def test_bad_keep_rules_change_nothing(
    sample_app: Any, client: Any, login: Any, form: dict[str, str], message: str
) -> None:
    alice = login(client, "alice")
    pid = give(client, alice.id, "M4", "M4-001", 5)
    response = client.post("/haves/keep", data=form)
    assert response.status_code == 400 and message in response.get_data(as_text=True)
    with Session(engine_of(client)) as session:
        assert owned(session, alice.id, pid) == (5, 0)
        user = session.get(User, alice.id)
        assert user is not None and user.keep_rules == {}


# ---- public profile ----------------------------------------------------------------------------


def _alice_with_lists(client: Any, login: Any, *, public: bool) -> Any:
    alice = login(client, "alice")
    pid = give(client, alice.id, "M4", "M4-001", 3)
    with Session(engine_of(client)) as session, session.begin():
        set_for_trade(session=session, user_id=alice.id, printing_id=pid, for_trade=2, now=NOW)
        set_note(session=session, user_id=alice.id, printing_id=pid, note="秘密备注：抽屉第三格", now=NOW)
        give_private = printing_id(session, "M4", "M4-004")  # owned, not for trade: never shown
        adjust(
            session=session,
            user_id=alice.id,
            printing_id=give_private,
            grade=ItemGrade(),
            delta=1,
            reason="manual",
            now=NOW,
        )
        user = session.get(User, alice.id)
        assert user is not None
        user.lists_public = public
    add_want(client, name="小红帽·狼猎手", quantity=3, min_condition="LP")
    return alice


def test_public_lists_are_shown_to_anyone_without_notes_or_the_collection(sample_app: Any, login: Any) -> None:
    _alice_with_lists(sample_app.test_client(), login, public=True)
    response = sample_app.test_client().get("/u/alice")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "alice 的交换与需求列表" in page
    assert "小红帽·森林歌者" in page and "M4-001" in page and ">2</td>" in page  # for trade: 2 of 3
    assert "小红帽·狼猎手" in page and "任意印刷" in page and ">LP</abbr>" in page
    assert "秘密备注" not in page
    assert "外婆的木屋" not in page  # owned but not for trade
    assert 'action="/wants' not in page  # read-only
    assert sample_app.test_client().get("/u/ALICE").status_code == 200  # names ignore case


def test_private_lists_are_a_404_saying_so(sample_app: Any, login: Any) -> None:
    owner = sample_app.test_client()
    _alice_with_lists(owner, login, public=False)
    anonymous = sample_app.test_client()
    bob = sample_app.test_client()
    login(bob, "bob")
    for visitor in (anonymous, bob):
        response = visitor.get("/u/alice")
        assert response.status_code == 404
        page = response.get_data(as_text=True)
        assert "这个用户的列表不公开" in page
        assert "小红帽" not in page and "M4-001" not in page
    own = owner.get("/u/alice")  # the owner previews their own page
    assert own.status_code == 200 and "只有你能看到这一页" in own.get_data(as_text=True)


def test_unknown_user_is_a_404(sample_app: Any) -> None:
    response = sample_app.test_client().get("/u/nobody")
    assert response.status_code == 404 and "没有这个用户" in response.get_data(as_text=True)


def test_user_written_text_is_escaped_on_the_profile(sample_app: Any, make_user: Any) -> None:
    evil = "<img src=x onerror=alert(1)>"
    with Session(get_engine(sample_app)) as session, session.begin():
        user = make_user(session, "mallory", lists_public=True)
        user.username, user.username_key = evil, username_key(evil)  # older or imported rows: never trust
    page = sample_app.test_client().get("/u/" + quote(evil)).get_data(as_text=True)
    assert evil not in page
    assert "&lt;img src=x onerror=alert(1)&gt; 的交换与需求列表" in page


# ---- +1 / −1 buttons and "我有 N 张" ------------------------------------------------------------

_COLLECTION_FORM = re.compile(
    r'<form class="collection-buttons" method="post" action="/collection/items">(.*?)</form>', re.S
)


def test_card_page_printings_have_collection_buttons_and_counts(sample_app: Any, client: Any, login: Any) -> None:
    assert not _COLLECTION_FORM.search(client.get("/cards/samsara/小红帽·森林歌者").get_data(as_text=True))
    alice = login(client, "alice")
    pid = give(client, alice.id, "M4", "M4-001", 2)
    give(client, alice.id, "M4", "M4-001", 1, HP)
    page = client.get("/cards/samsara/小红帽·森林歌者?lang=zh").get_data(as_text=True)
    forms = _COLLECTION_FORM.findall(page)
    assert forms, "no +1/−1 forms"
    mine = next(f for f in forms if f'name="printing_id" value="{pid}"' in f)
    assert 'name="csrf_token"' in mine
    assert '<input type="hidden" name="next" value="/cards/samsara/小红帽·森林歌者?lang=zh">' in mine
    assert re.search(r'name="delta" value="-1"\s', mine) and 'name="delta" value="1"' in mine
    assert "我有 3 张" in mine  # every grade counted
    others = [f for f in forms if f is not mine]
    assert all("我有 0 张" in f and "disabled" in f for f in others)  # nothing to take away


def test_search_results_have_buttons_in_both_views_with_one_count_query(sample_app: Any, login: Any) -> None:
    client = sample_app.test_client()
    alice = login(client, "alice")
    pid = give(client, alice.id, "M4", "M4-001", 4)
    statements: list[str] = []

    def remember(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engine = engine_of(client)
    event.listen(engine, "before_cursor_execute", remember)
    try:
        grid = client.get("/cards?q=小红帽").get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", remember)
    forms = _COLLECTION_FORM.findall(grid)
    assert len(forms) == grid.count('<li class="tile"') > 1
    assert any(f'value="{pid}"' in f and "我有 4 张" in f for f in forms)
    assert all('name="csrf_token"' in f and 'value="/cards?q=小红帽"' in f for f in forms)
    counting = [s for s in statements if "collection_item" in s and "sum(" in s.lower()]
    assert len(counting) == 1, counting

    table = client.get("/cards?q=小红帽&view=table").get_data(as_text=True)
    assert '<th scope="col">我的收藏</th>' in table
    assert len(_COLLECTION_FORM.findall(table)) == table.count("<tr>") - 1

    anonymous = sample_app.test_client().get("/cards?q=小红帽").get_data(as_text=True)
    assert not _COLLECTION_FORM.search(anonymous)


def test_plus_one_button_end_to_end(sample_app: Any, client: Any, login: Any) -> None:
    """The +1 form as rendered, posted to the collection area's form route, comes back here."""
    alice = login(client, "alice")
    page = client.get("/cards/samsara/小红帽·森林歌者").get_data(as_text=True)
    form = _COLLECTION_FORM.search(page)
    assert form
    fields = dict(re.findall(r'name="(printing_id|next)" value="([^"]*)"', form.group(1)))
    response = client.post("/collection/items", data={**fields, "delta": "1"})
    assert response.status_code in (302, 303)
    assert response.headers["Location"].endswith(quote("/cards/samsara/小红帽·森林歌者", safe="/")) or response.headers[
        "Location"
    ].endswith("/cards/samsara/小红帽·森林歌者")
    with Session(engine_of(client)) as session:
        total = session.scalar(
            select(func.sum(CollectionItem.quantity)).where(
                CollectionItem.user_id == alice.id, CollectionItem.printing_id == int(fields["printing_id"])
            )
        )
    assert total == 1
    assert "我有 1 张" in client.get("/cards/samsara/小红帽·森林歌者").get_data(as_text=True)


# ---- nav and CSRF ---------------------------------------------------------------------------------


def test_nav_links_for_signed_in_users(sample_app: Any, client: Any, login: Any) -> None:
    # the signed-in user's own pages sit in the account menu of the header
    nav = client.get("/").get_data(as_text=True).split('class="account-nav"', 1)[1].split("</nav>", 1)[0]
    assert "需求列表" not in nav
    login(client, "alice")
    nav = client.get("/wants").get_data(as_text=True).split('class="account-nav"', 1)[1].split("</nav>", 1)[0]
    assert 'href="/wants" aria-current="page">需求列表' in nav
    assert 'href="/haves"' in nav and 'href="/decks/mine"' in nav and "我的卡组" in nav


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/wants", {"card_id": "1", "quantity": "1"}),
        ("/wants/1", {"quantity": "5", "min_condition": "NM"}),
        ("/wants/1/delete", {}),
        ("/haves/keep", {"game": "samsara", "keep-C": "0"}),
    ],
)
def test_want_and_have_posts_without_csrf_token_are_refused(
    csrf_client: Any, sample_catalogue: Any, login: Any, path: str, form: dict[str, str]
) -> None:
    client = csrf_client
    alice = login(client, "alice")
    pid = give(client, alice.id, "M4", "M4-001", 3)
    with Session(engine_of(client)) as session, session.begin():
        session.add(WantItem(user_id=alice.id, card_id=card_id(session, "小红帽·森林歌者"), quantity=1, updated_at=NOW))
    before = wants_of(client, alice.id)
    for data in (form, {**form, "csrf_token": "forged"}):
        response = client.post(path, data=data)
        assert response.status_code == 400 and "安全令牌" in response.get_data(as_text=True)
    assert wants_of(client, alice.id) == before
    with Session(engine_of(client)) as session:
        assert owned(session, alice.id, pid) == (3, 0)


def test_want_list_prints_the_missing_copies_as_proxies(sample_app: Any, client: Any, login: Any) -> None:
    """a proxy sheet for a want list — one proxy per wanted copy not owned yet."""
    alice = login(client, "alice")
    assert client.get("/wants/proxies.pdf").status_code == 302  # nothing wanted: back to the list
    give(client, alice.id, "M4", "M4-001", 1)
    assert add_want(client, quantity=3).status_code == 302  # 3 wanted, 1 owned: 2 proxies
    with Session(engine_of(client)) as session:
        other = session.scalar(select(Card.name).where(Card.name != "小红帽·森林歌者").order_by(Card.id))
    assert add_want(client, name=other, quantity=8).status_code == 302  # 8 more: 10 copies, 2 pages
    assert "/wants/proxies.pdf" in client.get("/wants").get_data(as_text=True)
    response = client.get("/wants/proxies.pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    data = response.get_data()
    assert data.startswith(b"%PDF") and b"/Count 2" in data
    assert b"/MediaBox [0 0 595" in data or b"/MediaBox [ 0 0 595" in data


def test_want_proxies_need_a_signed_in_user(sample_app: Any) -> None:
    response = sample_app.test_client().get("/wants/proxies.pdf")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_wants_show_the_shortfall_and_others_never_see_a_satisfied_want(sample_app: Any, login: Any) -> None:
    """owning 2 of 3 shows 1 missing; owning 3 of a card wanted once hides it."""
    client = sample_app.test_client()
    alice = login(client, "alice", lists_public=True)
    add_want(client, name="小红帽·狼猎手", quantity=3)
    add_want(client, name="小红帽·森林歌者", quantity=1)
    give(client, alice.id, "M4", "M4-002", 2)  # 狼猎手: 2 of 3
    give(client, alice.id, "M4", "M4-001", 3)  # 森林歌者: 3, wanted once
    mine = _plain(client.get("/wants").get_data(as_text=True))
    missing = re.findall(r'<td class="num missing[^"]*">([^<]+)</td>', mine)
    assert sorted(missing) == ["1", "已齐"]
    public = sample_app.test_client().get("/u/alice").get_data(as_text=True)
    wants = public.split('id="wants-heading"', 1)[1]
    assert "小红帽·狼猎手" in wants and "小红帽·森林歌者" not in wants
    assert re.search(r'<span class="count">1</span>', wants)
    assert '<td class="num">1</td>' in wants  # the shortfall, not the wanted 3


def grades_of(client: Any, user_id: int) -> list[tuple[int | None, str | None, str | None]]:
    with Session(engine_of(client)) as session:
        rows = session.scalars(select(WantItem).where(WantItem.user_id == user_id).order_by(WantItem.id))
        return [(w.quantity, w.language, w.finish) for w in rows]


def test_want_language_and_finish_round_trip_through_the_card_page_and_the_list(
    sample_app: Any, client: Any, login: Any
) -> None:
    """a want may name a language and a finish (任意 by default); only such copies count."""
    alice = login(client, "alice")
    card_page = client.get("/cards/samsara/小红帽·森林歌者").get_data(as_text=True)
    form = re.search(r'<form class="inline-form want-form" method="post" action="/wants">(.*?)</form>', card_page, re.S)
    assert form, "no want form"
    body = form.group(1)
    assert (
        '<select id="want-language" name="language">' in body and '<option value="" selected>任意语言</option>' in body
    )
    assert '<select id="want-finish" name="finish">' in body and '<option value="" selected>任意工艺</option>' in body
    assert '<option value="EN">EN</option>' in body and '<option value="闪">闪卡</option>' in body
    # the defaults (empty selects) keep today's "any" want
    assert add_want(client, quantity=1, language="", finish="").status_code == 302
    assert grades_of(client, alice.id) == [(1, None, None)]
    assert add_want(client, quantity=2, language="EN", finish="闪").status_code == 302  # replaces it
    assert grades_of(client, alice.id) == [(2, "EN", "闪")]
    give(client, alice.id, "M4", "M4-001", 3)  # three 简中 普通 copies: not what the want asks for
    page = _plain(client.get("/wants").get_data(as_text=True))
    ((want_id, row),) = re.findall(r'<tr id="want-(\d+)">(.*?)</tr>', page, re.S)
    assert '<td class="num">0</td>' in row and '<td class="num missing">2</td>' in row
    assert '任意印刷 · <span class="want-language">EN</span> · <span class="want-finish">闪卡</span>' in row
    assert '<option value="EN" selected>EN</option>' in row and '<option value="闪" selected>闪卡</option>' in row
    give(client, alice.id, "M4", "M4-001", 1, grade=ItemGrade("LP", "EN", "闪"))
    row = _plain(client.get("/wants").get_data(as_text=True)).split(f'id="want-{want_id}"', 1)[1]
    assert '<td class="num missing">1</td>' in row  # the English foil counts
    # the list's form changes them (English name in the English interface is the i18n tests' job)
    data = {"quantity": 2, "min_condition": "MP", "language": "", "finish": "普通"}
    assert client.post(f"/wants/{want_id}", data=data).status_code == 302
    assert grades_of(client, alice.id) == [(2, None, "普通")]
    row = _plain(client.get("/wants").get_data(as_text=True)).split(f'id="want-{want_id}"', 1)[1]
    assert '<td class="num missing satisfied">已齐</td>' in row  # three 普通 copies cover two
    bad = client.post(f"/wants/{want_id}", data={**data, "language": "克林贡语"})
    assert bad.status_code == 400 and "未知的语言「克林贡语」" in bad.get_data(as_text=True)
    assert grades_of(client, alice.id) == [(2, None, "普通")]  # nothing written
    assert client.post(f"/wants/{want_id}", data={"quantity": 2, "min_condition": "MP"}).status_code == 302
    assert grades_of(client, alice.id) == [(2, None, None)]  # a form without them: any


def test_a_printing_want_refines_the_card_want_unless_wanted_in_addition(
    sample_app: Any, client: Any, login: Any
) -> None:
    """a card want ×1 and a printing want ×1 ask for one copy, of that printing
    (2 missing before); the checkbox on the wants page stores "in addition", and shows it."""
    alice = login(client, "alice")
    with Session(engine_of(client)) as session:
        pid = printing_id(session, "M4", "M4-001")
    add_want(client, quantity=1, min_condition="LP")
    add_want(client, printing_id=pid, quantity=1, min_condition="NM")

    def shown() -> tuple[list[str], list[bool], str]:
        page = client.get("/wants").get_data(as_text=True)
        missing = re.findall(r'<td class="num missing[^"]*"[^>]*>([^<]+)', page)
        boxes = re.findall(r'<input type="checkbox" name="in_addition" value="1"( checked)?>', page)
        return [m.strip() for m in missing], [bool(b) for b in boxes], page

    missing, boxes, page = shown()
    assert missing == ["已齐", "1"] and boxes == [False]  # one copy missing in all; one box, the printing's
    assert "另 1 张见指定印刷的需求" in page
    with Session(engine_of(client)) as session:
        printing_want = session.scalar(select(WantItem.id).where(WantItem.printing_id == pid))
    form = {"quantity": 1, "min_condition": "NM", "in_addition": "1"}
    assert client.post(f"/wants/{printing_want}", data=form).status_code == 302
    missing, boxes, page = shown()
    assert missing == ["1", "1"] and boxes == [True] and "见指定印刷的需求" not in page
    with Session(engine_of(client)) as session:
        assert session.get(WantItem, printing_want).in_addition is True
    assert add_want(client, printing_id=pid, quantity=1, min_condition="NM").status_code == 302  # the card page
    with Session(engine_of(client)) as session:  # wanting it again there keeps the box
        assert session.get(WantItem, printing_want).in_addition is True
    form.pop("in_addition")  # unticked
    assert client.post(f"/wants/{printing_want}", data=form).status_code == 302
    assert shown()[:2] == (["已齐", "1"], [False])
    give(client, alice.id, "M4", "M4-001", 1)  # the printing owned: both met
    assert shown()[0] == ["已齐", "已齐"]

"""The community catalogue: curators edit cards and printings on the web through the importer's
own checks; every change is a revision with a diff, shown on the card's history and revertable."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from catalog import curation
from catalog.ingest import ImportFailed
from catalog.models import Card, CardSet, CatalogueRevision, Game, Printing, RoleGrant, User, WantItem
from catalog.search import search

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
CARD = "小红帽·森林歌者"  # M4-001 in the sample


def _card(session: Session, name: str = CARD) -> Card:
    return session.exec(select(Card).where(Card.name == name)).one()


def _names(session: Session, query: str) -> list[str]:
    return [hit.card.name for hit in search(session=session, text=query, game="samsara").hits]


def _version(session: Session) -> str:
    return session.exec(select(Game.catalogue_version).where(Game.slug == "samsara")).one()


def _edit(engine: Engine, by: str, **cells: str) -> CatalogueRevision:
    with Session(engine) as session, session.begin():
        user = session.exec(select(User).where(User.username == by)).one()
        card = _card(session, cells.pop("_card", CARD))
        revision = curation.edit_card(
            session=session, by=user, card_id=card.id, cells=cells, note="卡牌实物核对", now=NOW
        )
        session.expunge(revision)
        return revision


@pytest.fixture
def people(sample_catalogue: Engine, make_user) -> Engine:
    with Session(sample_catalogue) as session, session.begin():
        make_user(session, "cura", role="curator")
        make_user(session, "player")
        make_user(session, "boss", role="admin")
    return sample_catalogue


def test_an_edit_is_a_revision_the_search_follows_and_a_revert_undoes(people: Engine) -> None:
    with Session(people) as session:
        before = curation.card_cells(session, _card(session))
        version = _version(session)
        assert _names(session, "o:独角兽") == []
    revision = _edit(people, "cura", text="这张战魂进场时，召唤一只独角兽。", attack="3")
    assert revision.changes == {
        "text": [before["text"], "这张战魂进场时，召唤一只独角兽。"],
        "attack": ["2", "3"],
    }
    with Session(people) as session:
        card = _card(session)
        assert card.text == "这张战魂进场时，召唤一只独角兽。" and card.attack == 3
        assert _names(session, "o:独角兽") == [CARD]  # the search rows moved with the card
        assert _names(session, "atk=3 森林歌者") == [CARD]
        assert _version(session) != version  # every cache keyed by the catalogue version moves
        lines = curation.history(session, card=card)
        assert [line.revision.id for line in lines] == [revision.id] and lines[0].username == "cura"
    with Session(people) as session, session.begin():
        cura = session.exec(select(User).where(User.username == "cura")).one()
        back = curation.revert(session=session, by=cura, revision_id=revision.id, note="原文有误", now=NOW)
        assert back.reverts_id == revision.id
    with Session(people) as session:
        assert curation.card_cells(session, _card(session)) == before
        assert _names(session, "o:独角兽") == []
        assert curation.history(session, card=_card(session))[1].reverted_by is not None


def test_an_edit_the_importer_would_refuse_changes_nothing(people: Engine) -> None:
    with Session(people) as session:
        before = curation.card_cells(session, _card(session))
    for cells, column in (
        ({"attack": "很多"}, "attack"),
        ({"type": "飞船"}, "type"),
        ({"keywords": "会飞"}, "keywords"),
    ):
        with pytest.raises(ImportFailed) as refused:
            _edit(people, "cura", **cells)
        assert refused.value.problems[0].column == column
    with Session(people) as session:
        assert curation.card_cells(session, _card(session)) == before
        assert session.exec(select(CatalogueRevision)).all() == []


def test_only_curators_edit_and_every_edit_says_why(people: Engine) -> None:
    with pytest.raises(curation.NotCurator):
        _edit(people, "player", attack="9")
    with Session(people) as session, session.begin():
        cura = session.exec(select(User).where(User.username == "cura")).one()
        with pytest.raises(curation.NoteMissing):
            curation.edit_card(
                session=session, by=cura, card_id=_card(session).id, cells={"attack": "9"}, note=" ", now=NOW
            )
        with pytest.raises(curation.NothingChanged):
            curation.edit_card(session=session, by=cura, card_id=_card(session).id, cells={}, note="x", now=NOW)


def test_a_rename_keeps_the_card_its_wants_and_its_printings(people: Engine) -> None:
    with Session(people) as session, session.begin():
        card = _card(session)
        card_id = card.id
        player = session.exec(select(User).where(User.username == "player")).one()
        session.add(WantItem(user_id=player.id, card_id=card_id, quantity=1, updated_at=NOW))
        printings = sorted(session.exec(select(Printing.id).where(Printing.card_id == card_id)).all())
    _edit(people, "cura", name="小红帽·林中歌者")
    with Session(people) as session:
        renamed = session.get(Card, card_id)
        assert renamed is not None and renamed.name == "小红帽·林中歌者"
        assert sorted(session.exec(select(Printing.id).where(Printing.card_id == card_id)).all()) == printings
        assert session.exec(select(WantItem.card_id)).all() == [card_id]
        assert _names(session, "林中歌者") == ["小红帽·林中歌者"] and _names(session, "森林歌者") == []
        assert _names(session, "linzhonggezhe") == ["小红帽·林中歌者"]  # pinyin keys rewritten too
        other = session.exec(select(Card.name).where(Card.game_id == renamed.game_id, Card.id != card_id)).first()
    with pytest.raises(curation.NameTaken):
        _edit(people, "cura", _card="小红帽·林中歌者", name=other)


def test_a_revert_of_cells_changed_since_is_refused(people: Engine) -> None:
    first = _edit(people, "cura", attack="3")
    _edit(people, "cura", attack="4")
    with Session(people) as session, session.begin():
        cura = session.exec(select(User).where(User.username == "cura")).one()
        with pytest.raises(curation.StaleRevert) as refused:
            curation.revert(session=session, by=cura, revision_id=first.id, note="x", now=NOW)
        assert "attack" in refused.value.message.zh


def test_a_printing_edit_goes_through_the_importer_too(people: Engine) -> None:
    with Session(people) as session, session.begin():
        cura = session.exec(select(User).where(User.username == "cura")).one()
        printing = session.exec(
            select(Printing).join(CardSet, col(CardSet.id) == col(Printing.set_id)).where(Printing.number == "M4-001")
        ).one()
        revision = curation.edit_printing(
            session=session,
            by=cura,
            printing_id=printing.id,
            cells={"rarity": "SR", "illustrator": "林"},
            note="x",
            now=NOW,
        )
        assert revision.label == "M4 M4-001" and revision.changes["rarity"] == ["C", "SR"]
        session.refresh(printing)
        assert printing.rarity == "SR" and printing.rarity_rank == 4 and printing.illustrator == "林"
        with pytest.raises(ImportFailed):
            curation.edit_printing(
                session=session, by=cura, printing_id=printing.id, cells={"rarity": "XR"}, note="x", now=NOW
            )


def test_web_history_edit_and_revert(sample_app, client, login) -> None:
    login(client, "cura", role="curator")
    with Session(_engine(sample_app)) as session:
        card_id = _card(session).id
    page = client.get(f"/cards/samsara/{CARD}")
    assert f"/catalogue/card/{card_id}/history".encode() in page.data
    form = client.get(f"/catalogue/card/{card_id}/edit")
    assert form.status_code == 200 and 'name="attack"' in form.get_data(as_text=True)
    refused = client.post(f"/catalogue/card/{card_id}/edit", data={"attack": "很多", "note": "x"})
    assert refused.status_code == 400 and "attack" in refused.get_data(as_text=True)
    assert 'value="很多"' in refused.get_data(as_text=True)  # the curator's cells kept in the form
    saved = client.post(
        f"/catalogue/card/{card_id}/edit", data={"attack": "5", "note": "官方勘误"}, follow_redirects=True
    )
    text = saved.get_data(as_text=True)
    assert saved.status_code == 200 and "官方勘误" in text and "<ins>5</ins>" in text
    card_page = client.get(f"/cards/samsara/{CARD}").get_data(as_text=True)
    assert "cura" in card_page  # last changed, by whom
    with Session(_engine(sample_app)) as session:
        revision_id = session.exec(select(CatalogueRevision.id)).one()
    unconfirmed = client.post(f"/catalogue/revisions/{revision_id}/revert", data={"note": "x", "card": card_id})
    assert unconfirmed.status_code == 302
    with Session(_engine(sample_app)) as session:
        assert _card(session).attack == 5
    client.post(f"/catalogue/revisions/{revision_id}/revert", data={"note": "x", "card": card_id, "confirm": "1"})
    with Session(_engine(sample_app)) as session:
        assert _card(session).attack == 2


def test_web_refuses_players_and_anonymous_visitors(sample_app, client, login) -> None:
    with Session(_engine(sample_app)) as session:
        card_id = _card(session).id
    assert client.get(f"/catalogue/card/{card_id}/history").status_code == 200  # history is public
    assert client.get(f"/catalogue/card/{card_id}/edit").status_code == 302  # sign in first
    login(client, "player")
    assert client.get(f"/catalogue/card/{card_id}/edit").status_code == 403
    assert client.post(f"/catalogue/card/{card_id}/edit", data={"attack": "9", "note": "x"}).status_code == 403
    assert client.get("/catalogue/card/99999999/history").status_code == 404
    with Session(_engine(sample_app)) as session:
        assert _card(session).attack == 2


def test_admins_grant_the_curator_role_curators_cannot(sample_app, login) -> None:
    client = sample_app.test_client()
    login(client, "cura", role="curator")
    assert client.get("/admin/users").status_code == 403
    boss = sample_app.test_client()
    login(boss, "boss", role="admin")
    login(sample_app.test_client(), "newbie")
    with Session(_engine(sample_app)) as session:
        newbie_id = session.exec(select(User.id).where(User.username == "newbie")).one()
    assert client.post(f"/admin/users/{newbie_id}/role", data={"role": "curator", "confirm": "1"}).status_code == 403
    assert "newbie" in boss.get("/admin/users?q=new").get_data(as_text=True)
    boss.post(f"/admin/users/{newbie_id}/role", data={"role": "curator"})  # not confirmed: nothing
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(User.role).where(User.id == newbie_id)).one() == "user"
    boss.post(f"/admin/users/{newbie_id}/role", data={"role": "curator", "confirm": "1"})
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(User.role).where(User.id == newbie_id)).one() == "curator"
        grant = session.exec(select(RoleGrant)).one()
        assert (grant.old_role, grant.new_role) == ("user", "curator")
    bad = boss.post(f"/admin/users/{newbie_id}/role", data={"role": "emperor", "confirm": "1"}, follow_redirects=True)
    assert bad.status_code == 200 and "emperor" in bad.get_data(as_text=True)


def _engine(app) -> Engine:
    from webapp.db import get_engine

    return get_engine(app)


def test_kept_answers_move_with_an_approved_edit_and_its_revert(sample_app, people: Engine) -> None:
    """The answer cache (keyed by the catalogue version) serves the new words at once after a
    curator's edit, and the old ones again after the revert: card page, search page, search API."""
    from urllib.parse import quote

    web = sample_app.test_client()
    page, api = f"/cards/samsara/{quote(CARD)}", "/api/v1/cards?q=o:独角兽"

    def shown() -> list[bool]:
        found = web.get("/cards?q=o:独角兽")  # one hit: the search page sends the visitor to the card
        return [
            "召唤一只独角兽" in web.get(page).get_data(as_text=True),
            found.status_code == 302 and found.headers["Location"].endswith(quote(CARD)),
            CARD in web.get(api).get_data(as_text=True),
        ]

    assert shown() == [False, False, False]
    assert shown() == [False, False, False]  # kept now
    revision = _edit(people, "cura", text="这张战魂进场时，召唤一只独角兽。")
    assert shown() == [True, True, True]
    with Session(people) as session, session.begin():
        cura = session.exec(select(User).where(User.username == "cura")).one()
        curation.revert(session=session, by=cura, revision_id=revision.id, note="原文有误", now=NOW)
    assert shown() == [False, False, False]

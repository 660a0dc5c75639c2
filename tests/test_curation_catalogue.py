"""Curators add printings and edit sets and formats (legal sets, ban/limit
lists) on the web through the importer's own checks; each change a revision on the set's or
format's history, revertable."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from catalog import curation
from catalog.curation import catalogue
from catalog.curation.create import add_printing
from catalog.ingest import ImportFailed
from catalog.models import BanEntry, Card, CardSet, CatalogueRevision, Format, Printing, User
from catalog.search import search
from webapp.db import get_engine

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


@pytest.fixture
def people(sample_catalogue: Engine, make_user) -> Engine:
    with Session(sample_catalogue) as session, session.begin():
        make_user(session, "cura", role="curator")
        make_user(session, "player")
    return sample_catalogue


def _user(session: Session, name: str) -> User:
    return session.exec(select(User).where(User.username == name)).one()


def _set(session: Session, code: str = "M4") -> CardSet:
    return session.exec(select(CardSet).where(CardSet.code == code)).one()


def _order(session: Session) -> list[str]:
    """The sets' codes in their games' manifest order."""
    return [s.code for s in session.exec(select(CardSet).order_by(col(CardSet.game_id), col(CardSet.position))).all()]


def _m8(session: Session) -> Format:
    return session.exec(select(Format).where(Format.code == "m8")).one()


def _bans(session: Session, fmt: Format) -> dict[str, int]:
    rows = session.exec(
        select(Card.name, BanEntry.limit)
        .join(Card, col(Card.id) == col(BanEntry.card_id))
        .where(BanEntry.format_id == fmt.id)
    ).all()
    return dict(rows)


def test_a_set_edit_goes_through_the_importer_and_reverts(people: Engine) -> None:
    with Session(people) as session:
        before = catalogue.set_cells(session, _set(session))
        positions = _order(session)
    with Session(people) as session, session.begin():
        revision = catalogue.edit_set(
            session=session,
            by=_user(session, "cura"),
            set_id=_set(session).id,
            cells={"name": "奇幻征途（修订）", "release": "2014-07"},
            note="官网",
            now=NOW,
        )
        assert revision.changes == {
            "name": [before["name"], "奇幻征途（修订）"],
            "release": [before["release"], "2014-07"],
        }
        revision_id = revision.id
    with Session(people) as session:
        m4 = _set(session)
        assert (m4.name, m4.release, m4.sample) == ("奇幻征途（修订）", "2014-07", True)
        assert _order(session) == positions
        with pytest.raises(ImportFailed) as refused:  # what the importer refuses, refused here
            catalogue.edit_set(
                session=session, by=_user(session, "cura"), set_id=m4.id, cells={"kind": "飞船"}, note="x", now=NOW
            )
        assert refused.value.problems[0].column == "kind"
    with Session(people) as session, session.begin():
        curation.revert(session=session, by=_user(session, "cura"), revision_id=revision_id, note="改回", now=NOW)
    with Session(people) as session:
        assert catalogue.set_cells(session, _set(session)) == before


def test_a_ban_list_edit_is_checked_and_recorded(people: Engine) -> None:
    with Session(people) as session:
        before = catalogue.format_cells(session, _m8(session))
        assert "虚华·空暝之主=0" in before["banlist"]
    with Session(people) as session, session.begin():
        cura = _user(session, "cura")
        fmt = _m8(session)
        revision = catalogue.edit_format(
            session=session,
            by=cura,
            format_id=fmt.id,
            cells={"banlist": before["banlist"] + "\n小红帽·森林歌者=1", "legal_sets": "M*"},
            note="2026 年禁限",
            now=NOW,
        )
        assert set(revision.changes) == {"banlist", "legal_sets"}
        assert _bans(session, fmt)["小红帽·森林歌者"] == 1 and _m8(session).legal_sets == ["M*"]
        with pytest.raises(ImportFailed) as refused:
            catalogue.edit_format(
                session=session, by=cura, format_id=fmt.id, cells={"banlist": "没有这张卡=0"}, note="x", now=NOW
            )
        assert refused.value.problems[0].column == "banlist"
        with pytest.raises(curation.CurationError):
            catalogue.edit_format(
                session=session, by=cura, format_id=fmt.id, cells={"banlist": "只有名字"}, note="x", now=NOW
            )
    with Session(people) as session, session.begin(), pytest.raises(curation.NotCurator):
        catalogue.edit_format(
            session=session,
            by=_user(session, "player"),
            format_id=_m8(session).id,
            cells={"name": "x"},
            note="x",
            now=NOW,
        )


def test_a_curator_adds_a_printing_and_a_new_card(people: Engine) -> None:
    row = {"number": "M4-901", "name": "林间独角兽", "rarity": "R", "type": "战魂", "attribute": "光", "cost": "1光"}
    with Session(people) as session, session.begin():
        revision = add_printing(
            session=session, by=_user(session, "cura"), set_id=_set(session).id, cells=row, note="新卡", now=NOW
        )
        assert revision.kind == "new_printing" and revision.changes["name"] == ["", "林间独角兽"]
        revision_id = revision.id
        with pytest.raises(curation.NotCurator):
            add_printing(
                session=session, by=_user(session, "player"), set_id=_set(session).id, cells=row, note="x", now=NOW
            )
    with Session(people) as session:
        assert session.exec(select(Printing).where(Printing.number == "M4-901")).one()
        assert [h.card.name for h in search(session=session, text="独角兽", game="samsara").hits] == ["林间独角兽"]
        assert session.exec(select(CatalogueRevision.kind)).all() == ["new_printing"]
        with pytest.raises(curation.CurationError):  # an addition is not reverted, it is edited
            curation.revert(session=session, by=_user(session, "cura"), revision_id=revision_id, note="x", now=NOW)


def test_web_set_and_format_edits_and_their_history_pages(sample_app, login) -> None:
    engine = get_engine(sample_app)
    with Session(engine) as session:
        set_id, format_id = _set(session).id, _m8(session).id
    player = sample_app.test_client()
    login(player, "player")
    assert player.get(f"/catalogue/set/{set_id}/edit").status_code == 403
    assert player.post(f"/catalogue/format/{format_id}/edit", data={"name": "x", "note": "x"}).status_code == 403
    assert player.get(f"/catalogue/sets/{set_id}/add").status_code == 403
    cura = sample_app.test_client()
    login(cura, "cura", role="curator")
    form = cura.get(f"/catalogue/set/{set_id}/edit").get_data(as_text=True)
    assert 'name="description"' in form
    bad = cura.post(f"/catalogue/set/{set_id}/edit", data={"release": "去年", "note": "x"})
    assert bad.status_code == 400 and "release" in bad.get_data(as_text=True)
    cura.post(f"/catalogue/set/{set_id}/edit", data={"release": "2014-07", "note": "官网"})
    history = cura.get(f"/catalogue/set/{set_id}/history").get_data(as_text=True)
    assert "<ins>2014-07</ins>" in history
    assert "/catalogue/set/" in cura.get("/sets/samsara/M4").get_data(as_text=True)
    saved = cura.post(
        f"/catalogue/format/{format_id}/edit", data={"legal_sets": "M* G*", "note": "新赛季"}, follow_redirects=True
    )
    assert saved.status_code == 200 and "<ins>M* G*</ins>" in saved.get_data(as_text=True)
    assert f"/catalogue/format/{format_id}/history" in cura.get("/sets/samsara").get_data(as_text=True)
    added = cura.post(
        f"/catalogue/sets/{set_id}/add",
        data={"number": "M4-902", "name": "林间小鹿", "rarity": "C", "type": "战魂", "attribute": "光", "note": "新卡"},
    )
    assert added.status_code == 302
    with Session(engine) as session:
        assert _set(session).release == "2014-07" and _m8(session).legal_sets == ["M*", "G*"]
        assert session.exec(select(Printing).where(Printing.number == "M4-902")).one()


def test_web_a_format_revision_is_reverted_from_its_page(sample_app, login) -> None:
    engine = get_engine(sample_app)
    with Session(engine) as session:
        format_id = _m8(session).id
        before = _m8(session).legal_sets
    cura = sample_app.test_client()
    login(cura, "cura", role="curator")
    cura.post(f"/catalogue/format/{format_id}/edit", data={"legal_sets": "M*", "note": "新赛季"})
    with Session(engine) as session:
        revision_id = session.exec(select(CatalogueRevision.id).where(CatalogueRevision.kind == "format")).one()
    page = cura.get(f"/catalogue/format/{format_id}/history").get_data(as_text=True)
    assert f"/catalogue/revisions/{revision_id}/revert" in page
    back = f"/catalogue/format/{format_id}/history"
    reverted = cura.post(
        f"/catalogue/revisions/{revision_id}/revert", data={"note": "撤回", "confirm": "1", "back": back}
    )
    assert reverted.status_code == 302 and reverted.headers["Location"].endswith(back)
    with Session(engine) as session:
        assert _m8(session).legal_sets == before
    elsewhere = cura.post(
        f"/catalogue/revisions/{revision_id}/revert",
        data={"note": "x", "confirm": "1", "back": "https://evil.example/"},
    )
    assert "evil.example" not in elsewhere.headers["Location"]  # no open redirect

"""players propose catalogue changes with a source, curators approve (a revision
crediting the proposer, through the importer's checks), edit then approve, or reject; a photo
may become the face of a printing without a scan."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from catalog import curation
from catalog.curation import proposals
from catalog.curation.create import NumberTaken
from catalog.images import scans
from catalog.ingest import ImportFailed
from catalog.models import Card, CardSet, CatalogueProposal, CatalogueRevision, Printing, PrintingScan, User
from catalog.search import search

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
CARD = "小红帽·森林歌者"  # M4-001 in the sample
NEW_TEXT = "这张战魂进场时，召唤一只独角兽。"


def photo(colour: tuple[int, int, int] = (30, 140, 60)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (630, 880), colour).save(out, "JPEG", quality=85)
    return out.getvalue()


def _user(session: Session, name: str) -> User:
    return session.exec(select(User).where(User.username == name)).one()


def _card(session: Session, name: str = CARD) -> Card:
    return session.exec(select(Card).where(Card.name == name)).one()


def _names(session: Session, query: str) -> list[str]:
    return [hit.card.name for hit in search(session=session, text=query, game="samsara").hits]


def _m4_001(session: Session) -> Printing:
    return session.exec(
        select(Printing).join(CardSet, col(CardSet.id) == col(Printing.set_id)).where(Printing.number == "M4-001")
    ).one()


@pytest.fixture
def people(sample_catalogue: Engine, make_user) -> Engine:
    with Session(sample_catalogue) as session, session.begin():
        make_user(session, "cura", role="curator")
        make_user(session, "player")
    return sample_catalogue


def _propose(engine: Engine, **fields) -> int:
    with Session(engine) as session, session.begin():
        fields.setdefault("kind", "card")
        if "target_id" not in fields:
            fields["target_id"] = _card(session).id
        fields.setdefault("source", "卡牌实物")
        proposal = proposals.propose(session=session, by=_user(session, "player"), now=NOW, **fields)
        assert proposal.id is not None
        return proposal.id


def test_a_correction_approved_is_a_revision_crediting_the_player_and_reverts(people: Engine) -> None:
    with Session(people) as session:
        before = curation.card_cells(session, _card(session))
    proposal_id = _propose(people, cells={"text": NEW_TEXT, "attack": before["attack"]})
    with Session(people) as session:
        assert _card(session).text == before["text"]  # nothing changes until a curator approves
        waiting = proposals.queue(session)
        assert [(w.proposal.id, w.username) for w in waiting] == [(proposal_id, "player")]
        assert proposals.diff(session, waiting[0].proposal) == [("text", before["text"], NEW_TEXT)]
        assert session.exec(select(CatalogueRevision)).all() == []  # the trial run left nothing
    with Session(people) as session, session.begin():
        revision = proposals.approve(session=session, by=_user(session, "cura"), proposal_id=proposal_id, now=NOW)
        revision_id = revision.id
    with Session(people) as session:
        assert _card(session).text == NEW_TEXT and _names(session, "o:独角兽") == [CARD]
        line = curation.history(session, card=_card(session))[0]
        assert (line.username, line.credited) == ("cura", "player")
        assert line.revision.changes == {"text": [before["text"], NEW_TEXT]}
        mine = proposals.of_user(session, user_id=_user(session, "player").id)
        assert mine[0].proposal.status == "approved" and mine[0].reviewer == "cura"
        assert proposals.queue(session) == []
    with Session(people) as session, session.begin():
        curation.revert(session=session, by=_user(session, "cura"), revision_id=revision_id, note="有误", now=NOW)
    with Session(people) as session:
        assert curation.card_cells(session, _card(session)) == before and _names(session, "o:独角兽") == []


def test_edit_then_approve_and_reject_with_a_reason(people: Engine) -> None:
    first = _propose(people, cells={"attack": "7"})
    second = _propose(people, cells={"attack": "8"})
    with Session(people) as session, session.begin():
        cura = _user(session, "cura")
        revision = proposals.approve(session=session, by=cura, proposal_id=first, now=NOW, cells={"attack": "3"})
        assert revision.changes == {"attack": ["2", "3"]} and revision.credited_id == _user(session, "player").id
        with pytest.raises(proposals.ReasonMissing):
            proposals.reject(session=session, by=cura, proposal_id=second, reason=" ", now=NOW)
        proposals.reject(session=session, by=cura, proposal_id=second, reason="与实物不符", now=NOW)
        with pytest.raises(proposals.ProposalClosed):
            proposals.approve(session=session, by=cura, proposal_id=second, now=NOW)
    with Session(people) as session:
        assert _card(session).attack == 3
        rejected = session.get(CatalogueProposal, second)
        assert rejected is not None and (rejected.status, rejected.reason) == ("rejected", "与实物不符")


def test_players_cannot_approve_and_proposals_are_checked_and_limited(people: Engine) -> None:
    proposal_id = _propose(people, cells={"attack": "7"})
    with Session(people) as session, session.begin():
        player = _user(session, "player")
        with pytest.raises(curation.NotCurator):
            proposals.approve(session=session, by=player, proposal_id=proposal_id, now=NOW)
    with pytest.raises(ImportFailed):  # what the importer would refuse is refused at once
        _propose(people, cells={"attack": "很多"})
    with pytest.raises(proposals.SourceMissing):
        _propose(people, cells={"attack": "5"}, source=" ")
    with pytest.raises(curation.NothingChanged):
        _propose(people, cells={"attack": "2"})
    for attack in range(proposals.PROPOSALS_PER_DAY - 1):
        _propose(people, cells={"attack": str(attack + 10)})
    with pytest.raises(proposals.TooManyProposals):
        _propose(people, cells={"attack": "99"})
    with Session(people) as session:
        assert len(session.exec(select(CatalogueProposal)).all()) == proposals.PROPOSALS_PER_DAY
        assert _card(session).attack == 2


def test_a_new_printing_with_a_photo_becomes_a_card_with_its_scan(people: Engine, tmp_path: Path) -> None:
    stored = scans.store_upload(data=photo(), store_dir=tmp_path)
    scan = proposals.Scan(stored.sha256, stored.width, stored.height)
    with Session(people) as session:
        m4 = session.exec(select(CardSet).where(CardSet.code == "M4")).one()
        row = {"number": "M4-901", "name": "林间独角兽", "rarity": "R", "type": "战魂", "text": "", "attribute": "光"}
        row |= {"cost": "1光", "attack": "2", "defense": "2"}
    with pytest.raises(NumberTaken):
        _propose(people, kind="new_printing", target_id=m4.id, cells={**row, "number": "M4-001"})
    proposal_id = _propose(
        people, kind="new_printing", target_id=m4.id, cells=row, scan=scan, scan_printing_id=proposals.NEW_PRINTING
    )
    with Session(people) as session, session.begin():
        revision = proposals.approve(session=session, by=_user(session, "cura"), proposal_id=proposal_id, now=NOW)
        assert revision.kind == "new_printing"
    with Session(people) as session:
        assert _names(session, "独角兽") == ["林间独角兽"]
        added = session.exec(select(Printing).where(Printing.number == "M4-901")).one()
        face = session.get(PrintingScan, added.id)
        assert face is not None and face.sha256 == stored.sha256
        assert [line.credited for line in curation.history(session, card=_card(session, "林间独角兽"))] == ["player"]


def test_a_photo_becomes_the_face_only_of_a_printing_without_one(people: Engine, tmp_path: Path) -> None:
    stored = scans.store_upload(data=photo(), store_dir=tmp_path)
    scan = proposals.Scan(stored.sha256, stored.width, stored.height)
    with Session(people) as session:
        printing_id = _m4_001(session).id
    proposal_id = _propose(people, cells={"attack": "4"}, scan=scan, scan_printing_id=printing_id)
    with pytest.raises(proposals.ScanTargetRefused):  # no photo, nothing to attach
        _propose(people, cells={"attack": "5"}, scan_printing_id=printing_id)
    with Session(people) as session, session.begin():
        proposals.approve(session=session, by=_user(session, "cura"), proposal_id=proposal_id, now=NOW)
    with Session(people) as session:
        face = session.get(PrintingScan, printing_id)
        assert face is not None and face.sha256 == stored.sha256 and face.uploaded_by == _user(session, "player").id
    with pytest.raises(proposals.ScanTargetRefused):  # it has one now
        _propose(people, cells={"attack": "5"}, scan=scan, scan_printing_id=printing_id)


def test_a_day_later_the_limit_is_lifted(people: Engine) -> None:
    for attack in range(proposals.PROPOSALS_PER_DAY):
        _propose(people, cells={"attack": str(attack + 10)})
    with Session(people) as session, session.begin():
        player = _user(session, "player")
        later = NOW + timedelta(days=1, seconds=1)
        card_id = _card(session).id
        proposals.propose(
            session=session, by=player, kind="card", target_id=card_id, cells={"attack": "4"}, source="x", now=later
        )


# --- on the web -------------------------------------------------------------------------------


def _engine(app) -> Engine:
    from webapp.db import get_engine

    return get_engine(app)


@pytest.fixture
def store(sample_app, tmp_path: Path) -> Path:
    sample_app.config["SCAN_DIR"] = str(tmp_path / "scans")
    return tmp_path / "scans"


def test_web_a_player_proposes_with_a_photo_a_curator_approves(sample_app, login, store: Path) -> None:
    player = sample_app.test_client()
    login(player, "player")
    with Session(_engine(sample_app)) as session:
        card_id, printing_id = _card(session).id, _m4_001(session).id
    page = player.get(f"/cards/samsara/{CARD}").get_data(as_text=True)
    assert f"/catalogue/card/{card_id}/propose" in page
    form = player.get(f"/catalogue/card/{card_id}/propose").get_data(as_text=True)
    assert 'name="text"' in form and 'name="photo"' in form and f'value="{printing_id}"' in form
    refused = player.post(f"/catalogue/card/{card_id}/propose", data={"attack": "很多", "source": "卡包"})
    assert refused.status_code == 400 and 'value="很多"' in refused.get_data(as_text=True)
    bad_photo = player.post(
        f"/catalogue/card/{card_id}/propose",
        data={"text": NEW_TEXT, "photo": (io.BytesIO(b"GIF89a...."), "x.gif")},
        content_type="multipart/form-data",
    )
    assert bad_photo.status_code == 400 and "GIF" in bad_photo.get_data(as_text=True)
    sent = player.post(
        f"/catalogue/card/{card_id}/propose",
        data={"text": NEW_TEXT, "photo": (io.BytesIO(photo()), "card.jpg"), "scan_printing": str(printing_id)},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert sent.status_code == 200 and "待审核" in sent.get_data(as_text=True)
    with Session(_engine(sample_app)) as session:
        proposal = session.exec(select(CatalogueProposal)).one()
        assert proposal.scan_sha256 and proposal.scan_printing_id == printing_id
    assert player.get(f"/catalogue/proposals/{proposal.id}/photo").headers["Content-Type"] == "image/webp"
    assert player.get("/catalogue/proposals").status_code == 403  # the queue is for curators
    assert player.post(f"/catalogue/proposals/{proposal.id}/approve").status_code == 403
    assert f"#{proposal.id}" in player.get("/account").get_data(as_text=True)

    other = sample_app.test_client()
    login(other, "other")
    assert other.get(f"/catalogue/proposals/{proposal.id}").status_code == 404  # not theirs

    cura = sample_app.test_client()
    login(cura, "cura", role="curator")
    queue = cura.get("/catalogue/proposals").get_data(as_text=True)
    assert f"/catalogue/proposals/{proposal.id}" in queue and "player" in queue
    detail = cura.get(f"/catalogue/proposals/{proposal.id}").get_data(as_text=True)
    assert f"<ins>{NEW_TEXT}</ins>" in detail
    approved = cura.post(f"/catalogue/proposals/{proposal.id}/approve", data={"text": NEW_TEXT + "（勘误）"})
    assert approved.status_code == 302
    history = cura.get(f"/catalogue/card/{card_id}/history").get_data(as_text=True)
    assert "提议者：player" in history and "（勘误）" in history
    with Session(_engine(sample_app)) as session:
        assert _card(session).text == NEW_TEXT + "（勘误）"
        face = session.get(PrintingScan, printing_id)
        assert face is not None and face.sha256 == proposal.scan_sha256
    assert "已采纳" in player.get("/account").get_data(as_text=True)
    again = cura.post(f"/catalogue/proposals/{proposal.id}/reject", data={"reason": "x"})
    assert again.status_code == 409


def test_web_new_printing_from_the_set_page_and_a_rejection(sample_app, login) -> None:
    player = sample_app.test_client()
    login(player, "player")
    with Session(_engine(sample_app)) as session:
        m4 = session.exec(select(CardSet).where(CardSet.code == "M4")).one()
    assert f"/catalogue/sets/{m4.id}/propose" in player.get("/sets/samsara/M4").get_data(as_text=True)
    row = {"number": "M4-901", "name": "林间独角兽", "rarity": "R", "type": "战魂", "attribute": "光", "cost": "1光"}
    nosource = player.post(f"/catalogue/sets/{m4.id}/propose", data=row)
    assert nosource.status_code == 400 and "出处" in nosource.get_data(as_text=True)
    sent = player.post(f"/catalogue/sets/{m4.id}/propose", data={**row, "source": "2026 年新品"})
    assert sent.status_code == 302
    with Session(_engine(sample_app)) as session:
        proposal_id = session.exec(select(CatalogueProposal.id)).one()
    cura = sample_app.test_client()
    login(cura, "cura", role="curator")
    assert cura.post(f"/catalogue/proposals/{proposal_id}/reject", data={"reason": ""}).status_code == 400
    cura.post(f"/catalogue/proposals/{proposal_id}/reject", data={"reason": "没有这张卡"})
    account = player.get("/account").get_data(as_text=True)
    assert "已拒绝" in account and "没有这张卡" in account
    with Session(_engine(sample_app)) as session:
        assert session.exec(select(Printing).where(Printing.number == "M4-901")).first() is None

"""a bad CSV's answer is bounded; exports never carry a live formula."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog.collection import csvio
from catalog.models import Card
from tests.kits.api import change, make_token

API = "/api/v1/collection"


def test_a_csv_of_unknown_rows_lists_its_first_problems_and_counts_the_rest(sample_app: Any, make_user: Any) -> None:
    _user, headers = make_token(sample_app, make_user, "alice")
    rows = 5000
    body = "set,number,quantity\n" + "".join(f"ZZ,{i},1\n" for i in range(rows))
    response = sample_app.test_client().post(
        f"{API}/import?mode=add", data=body.encode(), headers={**headers, "Content-Type": "text/csv"}
    )
    assert response.status_code == 422
    error = response.json["error"]
    assert len(error["details"]) == csvio.MAX_LISTED_PROBLEMS
    assert error["more"] == rows - csvio.MAX_LISTED_PROBLEMS
    assert f"{rows}" in error["message"]
    assert len(response.data) < 40_000  # was about 8 KB per 100 rows, without bound


@pytest.mark.parametrize("dangerous", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"])
def test_exports_neutralise_formulas_and_reimport_the_same(
    sample_app: Any, client: Any, make_user: Any, dangerous: str
) -> None:
    from webapp.db import get_engine

    user_id, headers = make_token(sample_app, make_user, "alice")
    with Session(get_engine(sample_app)) as session, session.begin():
        card = session.exec(select(Card).where(Card.name == "小红帽·森林歌者")).one()
        card.name = dangerous + "小红帽"
    assert change(client, headers, "M4-001", 2).status_code == 200
    for preset in ("lunzang", "deckbox"):
        exported = client.get(f"{API}/export?preset={preset}", headers=headers).get_data(as_text=True)
        cells = [cell for row in csv.reader(io.StringIO(exported)) for cell in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells
        assert f"'{dangerous}小红帽" in cells
    exported = client.get(f"{API}/export", headers=headers).data
    again = client.post(
        f"{API}/import?mode=replace&dry_run=1", data=exported, headers={**headers, "Content-Type": "text/csv"}
    )
    assert again.status_code == 200, again.json
    assert user_id


@pytest.mark.parametrize(
    ("cell", "written"),
    [("=1", "'=1"), ("普通", "普通"), ("", ""), ("'=1", "''=1"), ("M4-001", "M4-001"), ("-", "'-")],
)
def test_formula_cells_table(cell: str, written: str) -> None:
    assert csvio.safe_cell(cell) == written
    assert csvio.unescape_cell(written) == cell

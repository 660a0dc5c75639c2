"""The collection API: list, change, import, export, ledger — and who may do what."""

from __future__ import annotations

import io
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from catalog.accounts import revoke_token
from catalog.models import CardSet, LedgerEntry, Printing, User
from tests.kits.api import API, change, make_token
from tests.kits.collection import NOW, owned, printing_id
from tests.kits.db import table_counts
from tests.kits.web import served
from webapp.db import get_engine


@pytest.fixture
def alice(sample_app: Any, make_user: Any) -> tuple[int, dict[str, str]]:
    return make_token(sample_app, make_user, "alice")


@pytest.fixture
def bob(sample_app: Any, make_user: Any) -> tuple[int, dict[str, str]]:
    return make_token(sample_app, make_user, "bob")


def quantity(app: Any, user_id: int, number: str) -> int:
    with Session(get_engine(app)) as session:
        return owned(session, user_id, printing_id(session, "M4", number))[0]


def ledger_rows(app: Any, user_id: int | None = None) -> int:
    with Session(get_engine(app)) as session:
        query = select(func.count()).select_from(LedgerEntry)
        if user_id is not None:
            query = query.where(LedgerEntry.user_id == user_id)
        return session.scalar(query) or 0


# ---- happy paths ------------------------------------------------------------------------------


def test_add_list_remove_and_the_ledger(sample_app: Any, alice: Any) -> None:
    client, (_alice_id, headers) = sample_app.test_client(), alice
    response = change(client, headers, "M4-008", 2, condition="LP", language="EN", finish="foil")
    assert response.status_code == 200, response.get_json()
    item = response.get_json()
    assert item | {"delta": 2} == item
    assert (item["set"], item["number"], item["name"], item["rarity"]) == ("M4", "M4-008", "灰姑娘·水晶王妃", "UR")
    assert (item["condition"], item["language"], item["finish"], item["quantity"]) == ("LP", "EN", "闪", 2)
    assert change(client, headers, "M4-001", 1).get_json()["quantity"] == 1  # defaults NM / 简中 / 普通

    listed = client.get(API, headers=headers).get_json()
    assert listed["total"] == 2
    assert [(i["number"], i["quantity"], i["condition"]) for i in listed["items"]] == [
        ("M4-001", 1, "NM"),
        ("M4-008", 2, "LP"),
    ]
    assert set(listed["items"][0]) >= {"set", "number", "name", "rarity", "condition", "language", "finish"}
    assert listed["items"][0]["for_trade"] == 0 and listed["items"][0]["language"] == "简中"

    assert change(client, headers, "M4-001", -1).get_json()["quantity"] == 0
    listed = client.get(API, headers=headers).get_json()
    assert [i["number"] for i in listed["items"]] == ["M4-008"]  # quantity 0 is not listed
    assert listed["total"] == 1

    entries = client.get(f"{API}/ledger", headers=headers).get_json()["entries"]
    assert [(e["number"], e["delta"], e["reason"]) for e in entries] == [
        ("M4-001", -1, "manual"),
        ("M4-001", 1, "manual"),
        ("M4-008", 2, "manual"),
    ]
    assert entries[0]["at"].endswith("Z") and entries[2]["finish"] == "闪"


def test_paging_of_items_and_ledger(sample_app: Any, alice: Any) -> None:
    client, (_id, headers) = sample_app.test_client(), alice
    for n in range(1, 6):
        change(client, headers, f"M4-00{n}", n)
    first = client.get(API, headers=headers, query_string={"per_page": 2}).get_json()
    third = client.get(API, headers=headers, query_string={"per_page": 2, "page": 3}).get_json()
    assert first["total"] == 5 and first["has_more"] and not third["has_more"]
    assert [i["number"] for i in first["items"]] == ["M4-001", "M4-002"]
    assert [i["number"] for i in third["items"]] == ["M4-005"]
    ledger = client.get(f"{API}/ledger", headers=headers, query_string={"per_page": 2, "page": 2}).get_json()
    assert [e["number"] for e in ledger["entries"]] == ["M4-003", "M4-002"] and ledger["has_more"]
    assert client.get(API, headers=headers, query_string={"per_page": 0}).status_code == 400


def test_q_filters_with_the_search_language(sample_app: Any, alice: Any) -> None:
    client, (_id, headers) = sample_app.test_client(), alice
    for number in ("M4-001", "M4-002", "M4-008", "M4-010"):
        change(client, headers, number, 1)

    def numbers(q: str) -> list[str]:
        response = client.get(API, headers=headers, query_string={"q": q})
        assert response.status_code == 200, response.get_json()
        return [i["number"] for i in response.get_json()["items"]]

    assert numbers("r>=UR") == ["M4-008", "M4-010"]
    assert numbers("r:R") == ["M4-002"]
    assert numbers("小红帽") == ["M4-001", "M4-002"]
    assert numbers("-r:C own>0") == ["M4-002", "M4-008", "M4-010"]  # own counts for the caller
    assert numbers("set:M5") == []
    response = client.get(API, headers=headers, query_string={"q": "rarity>>"})
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "bad_query"


def test_export_import_round_trip_changes_nothing(sample_app: Any, alice: Any) -> None:
    client, (_alice_id, headers) = sample_app.test_client(), alice
    change(client, headers, "M4-001", 3)
    change(client, headers, "M4-008", 1, condition="HP", finish="闪")
    response = client.get(f"{API}/export", headers=headers)
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"].startswith("attachment;")
    text = response.get_data(as_text=True)
    assert text.splitlines()[0] == "set,number,name,quantity,condition,language,finish,for_trade"
    assert "M4,M4-008,灰姑娘·水晶王妃,1,HP,简中,闪,0" in text

    before = table_counts(get_engine(sample_app))
    report = client.post(f"{API}/import?mode=replace", data=text.encode("utf-8"), headers=headers)
    assert report.status_code == 200, report.get_json()
    body = report.get_json()
    assert (body["lines_added"], body["lines_changed"], body["lines_removed"]) == (0, 0, 0)
    after = table_counts(get_engine(sample_app))
    assert after["ledger_entry"] == before["ledger_entry"] and after["collection_item"] == before["collection_item"]

    deckbox = client.get(f"{API}/export", headers=headers, query_string={"preset": "deckbox"})
    assert deckbox.get_data(as_text=True).startswith("Count,Tradelist Count,Name,Edition,Card Number")
    assert client.get(f"{API}/export", headers=headers, query_string={"preset": "excel"}).status_code == 400


def test_import_add_raw_body_and_multipart(sample_app: Any, alice: Any) -> None:
    client, (alice_id, headers) = sample_app.test_client(), alice
    csv_text = "set,number,quantity\nM4,M4-001,2\nM4,M4-002,1\n"
    response = client.post(f"{API}/import?mode=add", data=csv_text.encode("utf-8"), headers=headers)
    assert response.status_code == 200, response.get_json()
    report = response.get_json()
    assert (report["mode"], report["dry_run"], report["lines_added"], report["cards_added"]) == ("add", False, 2, 3)
    upload = {"file": (io.BytesIO(b"set,number,quantity\nM4,M4-001,1\n"), "mine.csv")}
    response = client.post(f"{API}/import", data=upload, headers=headers, content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    assert quantity(sample_app, alice_id, "M4-001") == 3
    # curl --data-binary @file.csv sends a form content type: the body is still the CSV.
    sample_app.config["WTF_CSRF_ENABLED"] = True
    curl_like = client.post(
        f"{API}/import",
        data=b"set,number,quantity\nM4,M4-003,1\n",
        headers=headers,
        content_type="application/x-www-form-urlencoded",
    )
    assert curl_like.status_code == 200, curl_like.get_json()
    assert quantity(sample_app, alice_id, "M4-003") == 1
    entries = client.get(f"{API}/ledger", headers=headers).get_json()["entries"]
    assert {e["reason"] for e in entries} == {"import"}
    missing = client.post(f"{API}/import", data={"other": "x"}, headers=headers, content_type="multipart/form-data")
    assert missing.status_code == 400


def test_dry_run_writes_nothing(sample_app: Any, alice: Any) -> None:
    client, (alice_id, headers) = sample_app.test_client(), alice
    before = table_counts(get_engine(sample_app))
    response = client.post(
        f"{API}/import?mode=add&dry_run=1", data=b"set,number,quantity\nM4,M4-001,2\n", headers=headers
    )
    assert response.status_code == 200
    assert response.get_json()["dry_run"] is True and response.get_json()["lines_added"] == 1
    after = table_counts(get_engine(sample_app))
    assert {k: v for k, v in after.items() if k != "api_token"} == {k: v for k, v in before.items() if k != "api_token"}
    assert quantity(sample_app, alice_id, "M4-001") == 0
    assert client.post(f"{API}/import?dry_run=maybe", data=b"x", headers=headers).status_code == 400
    assert client.post(f"{API}/import?mode=merge", data=b"x", headers=headers).status_code == 400


def test_a_bad_file_is_422_with_line_and_column_and_writes_nothing(sample_app: Any, alice: Any) -> None:
    client, (_id, headers) = sample_app.test_client(), alice
    change(client, headers, "M4-001", 1)
    before = table_counts(get_engine(sample_app))
    bad = "set,number,quantity,condition\nM4,M4-001,2,NM\nM4,M4-999,1,NM\nM4,M4-002,lots,NM\nM4,M4-003,1,shiny\n"
    response = client.post(f"{API}/import?mode=replace", data=bad.encode("utf-8"), headers=headers)
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "invalid_csv" and error["message"] and error["message_en"]
    located = [(d["line"], d["column"]) for d in error["details"]]
    assert located == [(3, "number"), (4, "quantity"), (5, "condition")]
    assert all(d["message"] for d in error["details"])
    assert table_counts(get_engine(sample_app)) == before


def test_a_body_over_10_mb_is_refused_clearly(sample_app: Any, alice: Any) -> None:
    client, (_id, headers) = sample_app.test_client(), alice
    before = table_counts(get_engine(sample_app))
    line = b"M4,M4-001,1\n"
    body = b"set,number,quantity\n" + line * (10 * 1024 * 1024 // len(line) + 1)
    assert len(body) > 10 * 1024 * 1024
    response = client.post(f"{API}/import", data=body, headers=headers)
    assert response.status_code == 422
    assert "10 MB" in response.get_json()["error"]["message"]
    assert table_counts(get_engine(sample_app)) == before


def test_a_body_over_the_request_limit_is_a_json_413(sample_app: Any, alice: Any) -> None:
    sample_app.config["MAX_CONTENT_LENGTH"] = 1024
    client, (_id, headers) = sample_app.test_client(), alice
    response = client.post(f"{API}/import", data=b"x" * 4096, headers=headers)
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "too_large"
    assert "太大" in response.get_json()["error"]["message"]


def test_the_default_request_limit_is_above_the_scan_cap(sample_app: Any) -> None:
    from catalog.images.scans import MAX_BYTES

    assert MAX_BYTES < sample_app.config["MAX_CONTENT_LENGTH"] < MAX_BYTES * 1.2


# ---- errors and permissions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"set": "M4", "number": "M4-001"}, 400, "bad_request"),  # no delta
        ({"set": "M4", "number": "M4-001", "delta": "1"}, 400, "bad_request"),
        ({"set": "M4", "number": "M4-001", "delta": True}, 400, "bad_request"),
        ({"set": "M4", "number": "M4-001", "delta": 10**9}, 400, "bad_request"),
        ({"set": "M4", "number": "M4-001", "delta": 1.5}, 400, "bad_request"),
        ({"set": "M4", "number": "M4-001", "delta": 1e9}, 400, "bad_request"),
        ({"number": "M4-001", "delta": 1}, 400, "bad_request"),
        ({"set": "M4", "number": "M4-001", "delta": 1, "condition": "shiny"}, 400, "bad_grade"),
        ({"set": "M4", "number": "M4-001", "delta": 1, "language": 3}, 400, "bad_request"),
        ({"set": "M4", "number": "M4-999", "delta": 1}, 404, "unknown_printing"),
        ({"set": "ZZ", "number": "1", "delta": 1}, 404, "unknown_printing"),
        ({"set": "M4", "number": "M4-001", "delta": -1}, 409, "negative_quantity"),
        ([1, 2], 400, "bad_request"),
    ],
)
def test_bad_changes_are_refused_and_change_nothing(
    sample_app: Any, alice: Any, body: Any, status: int, code: str
) -> None:
    client, (_id, headers) = sample_app.test_client(), alice
    before = table_counts(get_engine(sample_app))
    response = client.post(f"{API}/items", json=body, headers=headers)
    assert response.status_code == status, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == code and error["message"] and error["message_en"]
    after = table_counts(get_engine(sample_app))
    assert {k: v for k, v in after.items() if k != "api_token"} == {k: v for k, v in before.items() if k != "api_token"}


def test_an_integral_json_number_is_an_integer(sample_app: Any, alice: Any) -> None:
    """JSON Schema (the document's "integer") counts 2.0 as an integer: the server takes it as 2."""
    client, (user_id, headers) = sample_app.test_client(), alice
    response = change(client, headers, "M4-001", 2.0)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["quantity"] == 2 and quantity(sample_app, user_id, "M4-001") == 2


def test_not_json_is_400(sample_app: Any, alice: Any) -> None:
    client, (_id, headers) = sample_app.test_client(), alice
    response = client.post(f"{API}/items", data="{not json", headers=headers, content_type="application/json")
    assert response.status_code == 400


def test_409_leaves_quantity_and_ledger_unchanged(sample_app: Any, alice: Any) -> None:
    client, (alice_id, headers) = sample_app.test_client(), alice
    change(client, headers, "M4-001", 2)
    rows = ledger_rows(sample_app, alice_id)
    response = change(client, headers, "M4-001", -3)
    assert response.status_code == 409
    assert "不能小于 0" in response.get_json()["error"]["message"]
    assert quantity(sample_app, alice_id, "M4-001") == 2
    assert ledger_rows(sample_app, alice_id) == rows


ROUTES = [
    ("get", API, {}),
    ("get", f"{API}/ledger", {}),
    ("get", f"{API}/export", {}),
    ("post", f"{API}/items", {"json": {"set": "M4", "number": "M4-001", "delta": 1}}),
    ("post", f"{API}/import", {"data": b"set,number\nM4,M4-001\n"}),
]


@pytest.mark.parametrize(("method", "path", "kwargs"), ROUTES)
def test_401_without_a_token_or_with_a_revoked_one(
    sample_app: Any, alice: Any, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    client, (alice_id, headers) = sample_app.test_client(), alice
    anonymous = getattr(client, method)(path, **kwargs)
    assert anonymous.status_code == 401
    assert anonymous.get_json()["error"]["code"] == "unauthorized"
    assert getattr(client, method)(path, headers={"Authorization": "Bearer lz_nope"}, **kwargs).status_code == 401
    with Session(get_engine(sample_app)) as session, session.begin():
        user = session.get(User, alice_id)
        assert user is not None
        from catalog.accounts import list_tokens

        for token in list_tokens(session=session, user=user):
            assert token.id is not None
            revoke_token(session=session, user=user, token_id=token.id, now=NOW)
    assert getattr(client, method)(path, headers=headers, **kwargs).status_code == 401
    assert ledger_rows(sample_app) == 0


def test_session_cookie_reads_but_never_writes(sample_app: Any, client: Any, login: Any) -> None:
    login(client, "carol")
    assert client.get(API).status_code == 200
    assert client.get(f"{API}/ledger").status_code == 200
    assert client.post(f"{API}/items", json={"set": "M4", "number": "M4-001", "delta": 1}).status_code == 401
    assert client.post(f"{API}/import", data=b"set,number\nM4,M4-001\n").status_code == 401
    assert ledger_rows(sample_app) == 0


def test_one_users_token_never_reaches_anothers_collection(sample_app: Any, client: Any, alice: Any, bob: Any) -> None:
    (alice_id, alice_h), (bob_id, bob_h) = alice, bob
    change(client, alice_h, "M4-001", 3)
    assert client.get(API, headers=bob_h).get_json() == {
        "items": [],
        "total": 0,
        "page": 1,
        "per_page": 100,
        "has_more": False,
    }
    assert client.get(f"{API}/ledger", headers=bob_h).get_json()["entries"] == []
    assert len(client.get(f"{API}/export", headers=bob_h).get_data(as_text=True).splitlines()) == 1
    assert client.get(API, headers=bob_h, query_string={"q": "own>0"}).get_json()["total"] == 0
    # Bob's writes land in Bob's collection only.
    assert change(client, bob_h, "M4-001", -1).status_code == 409
    assert change(client, bob_h, "M4-001", 1).get_json()["quantity"] == 1
    replace = client.post(f"{API}/import?mode=replace", data=b"set,number,quantity\n", headers=bob_h)
    assert replace.status_code == 200, replace.get_json()
    assert quantity(sample_app, alice_id, "M4-001") == 3
    assert quantity(sample_app, bob_id, "M4-001") == 0
    assert client.get(API, headers=alice_h).get_json()["total"] == 1


def test_every_collection_route_is_documented_with_bearer_auth(sample_app: Any) -> None:
    spec = sample_app.test_client().get("/api/v1/openapi.json").get_json()
    for path in ("/collection", "/collection/items", "/collection/import", "/collection/export", "/collection/ledger"):
        for operation in spec["paths"][path].values():
            assert operation["security"] == [{"bearerAuth": []}], path


# ---- concurrency through the real HTTP stack -----------------------------------------------------


@pytest.fixture
def live_server(sample_app: Any) -> Iterator[str]:
    with served(sample_app, "lunzang-api-test-server") as base:
        yield base


def test_concurrent_plus_and_minus_never_lose_an_update(sample_app: Any, alice: Any, live_server: str) -> None:
    """8 threads × 20 requests of +1/−1 on one item through a threaded HTTP server."""
    alice_id, headers = alice
    start = 3
    assert change(sample_app.test_client(), headers, "M4-001", start).status_code == 200
    outcomes: list[tuple[int, int]] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def post(delta: int) -> int:
        body = json.dumps({"set": "M4", "number": "M4-001", "delta": delta}).encode()
        request = urllib.request.Request(
            f"{live_server}{API}/items",
            data=body,
            method="POST",
            headers={**headers, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)

    def worker(index: int) -> None:
        try:
            for step in range(20):
                # Threads lean different ways, so the quantity touches 0 and some −1 are refused.
                delta = -1 if (step + index) % 3 else 1
                status = post(delta)
                with lock:
                    outcomes.append((delta, status))
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert len(outcomes) == 160
    assert {status for _delta, status in outcomes} <= {200, 409}, outcomes
    assert any(status == 409 for _delta, status in outcomes)  # the floor was reached
    applied = sum(delta for delta, status in outcomes if status == 200)
    final = quantity(sample_app, alice_id, "M4-001")
    assert final == start + applied >= 0
    assert all(delta == -1 for delta, status in outcomes if status == 409)
    with Session(get_engine(sample_app)) as session:
        pid = session.scalar(
            select(Printing.id).join(CardSet, CardSet.id == Printing.set_id).where(Printing.number == "M4-001")
        )
        total = session.scalar(
            select(func.sum(LedgerEntry.delta)).where(LedgerEntry.user_id == alice_id, LedgerEntry.printing_id == pid)
        )
    assert total == final


def test_import_an_unknown_header_answers_its_first_rows_then_map_names_the_columns(
    sample_app: Any, alice: Any
) -> None:
    """Through the API: 422 unrecognised_header with the header and first rows; ?map= imports."""
    client, (alice_id, headers) = sample_app.test_client(), alice
    body = "Karte\tStück\nSummit Fist Champion\t2\n".encode("utf-16")
    refused = client.post(f"{API}/import", data=body, headers=headers)
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "unrecognised_header" and error["header"] == ["Karte", "Stück"]
    assert error["message_en"] and error["sample"] == [["Summit Fist Champion", "2"]]
    bad = client.post(f"{API}/import", data=body, headers=headers, query_string={"map": "Karte=colour"})
    assert bad.status_code == 400 and "colour" in bad.get_json()["error"]["message"]
    done = client.post(f"{API}/import", data=body, headers=headers, query_string={"map": "Karte=name,Stück=quantity"})
    assert done.status_code == 200 and done.get_json()["mapped"] is True
    with Session(get_engine(sample_app)) as session:
        assert owned(session, alice_id, printing_id(session, "SMP", "SMP-001")) == (2, 0)

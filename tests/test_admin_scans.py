"""The admin scan-upload page: admins only, real files, nothing stored on a bad one."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from PIL import Image
from sqlalchemy import func, select
from sqlmodel import Session

from catalog.models import PrintingScan
from webapp.db import get_engine

PAGE = "/admin/scans"


def jpeg(size: tuple[int, int] = (630, 880), colour: tuple[int, int, int] = (30, 140, 60)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG", quality=85)
    return out.getvalue()


def upload(client: Any, data: bytes, filename: str, number: str = "M4-001", **fields: str) -> Any:
    form = {"number": number, "game": "samsara", "set_code": "M4", **fields, "scan": (io.BytesIO(data), filename)}
    return client.post(PAGE, data=form, content_type="multipart/form-data")


def scans_stored(app: Any) -> int:
    with Session(get_engine(app)) as session:
        return session.scalar(select(func.count()).select_from(PrintingScan)) or 0


def files_in(store: Path) -> list[Path]:
    return [p for p in store.rglob("*") if p.is_file()] if store.exists() else []


@pytest.fixture
def store(sample_app: Any, tmp_path: Path) -> Path:
    sample_app.config["SCAN_DIR"] = str(tmp_path / "scans")
    return tmp_path / "scans"


def test_admin_uploads_a_jpeg_and_the_card_page_shows_it(sample_app: Any, client: Any, login: Any, store: Path) -> None:
    login(client, "root", role="admin")
    page = client.get(PAGE).get_data(as_text=True)
    assert 'enctype="multipart/form-data"' in page and 'name="csrf_token"' in page
    assert "还没有上传任何卡图" in page

    response = upload(client, jpeg(), "front.jpg")
    assert response.status_code == 302, response.get_data(as_text=True)
    shown = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "卡图已上传：M4-001" in shown
    card_url = "/cards/samsara/" + quote("小红帽·森林歌者")
    assert f'href="{card_url}"' in shown
    assert scans_stored(sample_app) == 1 and files_in(store)

    card = client.get(card_url).get_data(as_text=True)
    src = re.search(r'<figure class="card-image">\s*<img src="([^"]+)"', card)
    assert src is not None and "v=scan-" in src.group(1)
    image = client.get(src.group(1).replace("&amp;", "&"))
    assert image.status_code == 200 and image.mimetype == "image/webp"

    # Remove: the card page draws its face again.
    with Session(get_engine(sample_app)) as session:
        printing_id = session.scalar(select(PrintingScan.printing_id))
    removed = client.post(f"{PAGE}/{printing_id}/remove", follow_redirects=True)
    assert "已删除这张卡图" in removed.get_data(as_text=True)
    assert scans_stored(sample_app) == 0
    assert "v=scan-" not in client.get(card_url).get_data(as_text=True)
    again = client.post(f"{PAGE}/{printing_id}/remove", follow_redirects=True)
    assert "这张印刷没有上传的卡图" in again.get_data(as_text=True)


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"this is not an image at all\n" * 40, "card.png", "JPEG、PNG、WebP"),
        (b"GIF89a" + b"\x00" * 64, "card.gif", "不支持 GIF 格式"),
        (b"", "empty.jpg", ""),
    ],
)
def test_bad_files_show_the_error_and_store_nothing(
    sample_app: Any, client: Any, login: Any, store: Path, data: bytes, filename: str, message: str
) -> None:
    login(client, "root", role="admin")
    response = upload(client, data, filename)
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    assert message in text and 'class="flashes"' in text
    assert 'value="M4-001"' in text  # the form keeps what was typed
    assert scans_stored(sample_app) == 0
    assert files_in(store) == []


def test_unknown_number_and_missing_fields(sample_app: Any, client: Any, login: Any, store: Path) -> None:
    login(client, "root", role="admin")
    unknown = upload(client, jpeg(), "a.jpg", number="M4-999")
    assert unknown.status_code == 400 and "M4-999" in unknown.get_data(as_text=True)
    assert upload(client, jpeg(), "a.jpg", number="").status_code == 400
    no_file = client.post(PAGE, data={"number": "M4-001"}, content_type="multipart/form-data")
    assert no_file.status_code == 400 and "请选择一个卡图文件" in no_file.get_data(as_text=True)
    assert scans_stored(sample_app) == 0 and files_in(store) == []


def test_only_admins_get_in(sample_app: Any, login: Any, store: Path) -> None:
    anonymous = sample_app.test_client()
    response = anonymous.get(PAGE)
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert upload(anonymous, jpeg(), "a.jpg").status_code == 302
    for role in ("user", "organizer"):
        client = sample_app.test_client()
        login(client, f"someone-{role}", role=role)
        page = client.get(PAGE)
        assert page.status_code == 403 and "只有管理员" in page.get_data(as_text=True)
        assert upload(client, jpeg(), "a.jpg").status_code == 403
        assert client.post(f"{PAGE}/1/remove").status_code == 403
    assert scans_stored(sample_app) == 0 and files_in(store) == []


def test_the_upload_form_needs_a_csrf_token(sample_app: Any, client: Any, login: Any, store: Path) -> None:
    sample_app.config["WTF_CSRF_ENABLED"] = True
    login(client, "root", role="admin")
    assert upload(client, jpeg(), "a.jpg").status_code == 400
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get(PAGE).get_data(as_text=True))
    assert token is not None
    assert upload(client, jpeg(), "a.jpg", csrf_token=token.group(1)).status_code == 302
    assert scans_stored(sample_app) == 1


def test_an_oversize_request_is_a_clear_413_page(sample_app: Any, client: Any, login: Any, store: Path) -> None:
    sample_app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    login(client, "root", role="admin")
    response = upload(client, b"\xff" * (128 * 1024), "huge.jpg")
    assert response.status_code == 413
    assert "上传的内容太大" in response.get_data(as_text=True)
    assert scans_stored(sample_app) == 0


def test_admins_find_the_upload_page_in_the_header(sample_app: Any, login: Any) -> None:
    admin, user = sample_app.test_client(), sample_app.test_client()
    login(admin, "boss", role="admin")
    login(user, "someone", role="user")
    assert f'href="{PAGE}"' in admin.get("/").get_data(as_text=True)
    assert f'href="{PAGE}"' not in user.get("/").get_data(as_text=True)

"""Uploaded card scans: refusals, normalisation, storage by hash, serving, the CLI."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog.db import transaction
from catalog.images import faces as images
from catalog.images import scans
from catalog.lookup import UnknownPrinting, find_printing
from catalog.models import Printing, PrintingScan

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
RED, BLUE, GREEN = (220, 20, 20), (20, 40, 220), (20, 200, 40)


def encoded(fmt: str, size: tuple[int, int] = (630, 880), colour: tuple[int, int, int] = GREEN, **save: Any) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, fmt, **save)
    return buffer.getvalue()


def bomb() -> bytes:
    """A 10000×10000 (100 MP) PNG of one bit per pixel: a few KB on disk, 300 MB as RGB."""
    buffer = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(buffer, "PNG")
    data = buffer.getvalue()
    assert len(data) < 50_000
    return data


def stored_files(store: Path) -> list[Path]:
    return sorted(p for p in store.rglob("*") if p.is_file()) if store.exists() else []


def printing_id(session: Session, number: str = "M4-001") -> int:
    printing = session.scalars(select(Printing).where(Printing.number == number)).one()
    assert printing.id is not None
    return printing.id


# ---------------------------------------------------------------------------- refusals


REFUSALS = [
    ("text renamed .png", lambda: b"Not an image at all, just text in a file called card.png\n" * 20, "不是图片"),
    ("100-megapixel PNG bomb", bomb, "像素太多"),
    ("truncated JPEG", lambda: encoded("JPEG", (900, 1260), quality=95)[:-3000], "损坏或不完整"),
    ("oversize file", lambda: encoded("PNG", (300, 420)) + b"\0" * scans.MAX_BYTES, "文件太大"),
    ("GIF", lambda: encoded("GIF"), "不支持 GIF"),
    ("tiny", lambda: encoded("PNG", (100, 140)), "图片太小"),
    ("empty", lambda: b"", "文件是空的"),
]


@pytest.mark.parametrize(("label", "make", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_bad_uploads_are_refused_and_store_nothing(
    sample_catalogue: Engine, session: Session, tmp_path: Path, label: str, make: Any, message: str
) -> None:
    store = tmp_path / "scans"
    with pytest.raises(scans.ScanError) as caught:
        scans.add_scan(session=session, printing_id=printing_id(session), data=make(), store_dir=store, now=NOW)
    assert message in caught.value.message.zh
    assert caught.value.message.en  # English alongside
    assert stored_files(store) == []
    assert session.scalars(select(PrintingScan)).all() == []


def test_pixel_count_is_read_from_the_header_before_decoding() -> None:
    # 7000×7000 = 49 MP: under Pillow's own bomb limit, over ours; refused with its size.
    buffer = io.BytesIO()
    Image.new("1", (7000, 7000)).save(buffer, "PNG")
    with pytest.raises(scans.ScanError, match="7000×7000"):
        scans.prepare_scan(buffer.getvalue())


def test_a_png_with_a_broken_checksum_is_refused() -> None:
    data = bytearray(encoded("PNG", (300, 420)))
    data[60] ^= 0xFF  # inside the IDAT chunk
    with pytest.raises(scans.ScanError, match="损坏"):
        scans.prepare_scan(bytes(data))


def test_unknown_printing_is_refused_before_anything_is_written(
    sample_catalogue: Engine, session: Session, tmp_path: Path
) -> None:
    with pytest.raises(scans.ScanError, match="没有编号为"):
        scans.add_scan(session=session, printing_id=999_999, data=encoded("PNG"), store_dir=tmp_path / "scans", now=NOW)
    assert stored_files(tmp_path / "scans") == []


# ---------------------------------------------------------------------------- normalisation


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_accepted_formats_become_our_sizes(fmt: str) -> None:
    prepared = scans.prepare_scan(encoded(fmt, (1000, 1400)))
    assert set(prepared.files) == {f"{s}.{f}" for s in images.SIZES for f in images.FORMATS}
    for name, blob in prepared.files.items():
        size, out_fmt = name.split(".")
        image = Image.open(io.BytesIO(blob))
        assert image.size == images.dimensions(size)
        assert image.format == out_fmt.upper()
    assert (prepared.width, prepared.height) == (1000, 1400)


def test_exif_orientation_is_applied() -> None:
    # Stored landscape, top half red and bottom half blue, with "rotate 90° clockwise to show"
    # (orientation 6): shown portrait with blue at the left and red at the right.
    stored = Image.new("RGB", (980, 700), RED)
    stored.paste(BLUE, (0, 350, 980, 700))
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    stored.save(buffer, "JPEG", exif=exif.tobytes(), quality=95)
    prepared = scans.prepare_scan(buffer.getvalue())
    assert (prepared.width, prepared.height) == (700, 980)
    large = Image.open(io.BytesIO(prepared.files["large.png"])).convert("RGB")
    w, h = large.size
    left, right = large.getpixel((20, h // 2)), large.getpixel((w - 20, h // 2))
    assert isinstance(left, tuple) and isinstance(right, tuple)
    assert left[2] > 150 and left[0] < 80  # blue
    assert right[0] > 150 and right[2] < 80  # red


def test_metadata_is_stripped() -> None:
    exif = Image.Exif()
    exif[0x010F] = "SpyCam Maker"  # Make
    exif[0x0131] = "SecretSoftware 1.0"  # Software
    buffer = io.BytesIO()
    image = Image.new("RGB", (630, 880), GREEN)
    from PIL import PngImagePlugin

    text = PngImagePlugin.PngInfo()
    text.add_text("Comment", "home address: 1 Secret Road")
    image.save(buffer, "PNG", exif=exif.tobytes(), pnginfo=text)
    assert b"SpyCam" in buffer.getvalue()
    prepared = scans.prepare_scan(buffer.getvalue())
    for blob in prepared.files.values():
        assert b"SpyCam" not in blob and b"Secret" not in blob and b"Exif" not in blob
        out = Image.open(io.BytesIO(blob))
        assert not out.getexif() and "icc_profile" not in out.info and "Comment" not in out.info


def test_other_shapes_are_cropped_to_the_card_not_stretched() -> None:
    # A square with a red centre column: cropping keeps the centre, the sides are cut.
    square = Image.new("RGB", (1000, 1000), BLUE)
    square.paste(RED, (400, 0, 600, 1000))
    buffer = io.BytesIO()
    square.save(buffer, "PNG")
    large = Image.open(io.BytesIO(scans.prepare_scan(buffer.getvalue()).files["large.png"]))
    assert large.size == images.dimensions("large")
    assert large.getpixel((large.width // 2, 10)) == RED
    assert large.getpixel((5, 10)) == BLUE


def test_transparency_is_laid_on_white() -> None:
    buffer = io.BytesIO()
    Image.new("RGBA", (630, 880), (0, 0, 0, 0)).save(buffer, "PNG")
    large = Image.open(io.BytesIO(scans.prepare_scan(buffer.getvalue()).files["large.png"]))
    assert large.getpixel((100, 100)) == (255, 255, 255)


# ---------------------------------------------------------------------------- storage


def test_stored_by_content_hash_and_the_same_upload_twice_is_one_scan(
    sample_catalogue: Engine, session: Session, tmp_path: Path
) -> None:
    store = tmp_path / "scans"
    data = encoded("JPEG", (900, 1260), RED)
    pid = printing_id(session)
    first = scans.add_scan(session=session, printing_id=pid, data=data, store_dir=store, uploaded_by=None, now=NOW)
    files = stored_files(store)
    assert len(files) == 6 and all(p.parent.name == first.sha256[:2] for p in files)
    assert scans.read_scan(store, first.sha256, "small", "webp") is not None
    again = scans.add_scan(session=session, printing_id=pid, data=data, store_dir=store, now=NOW)
    assert again.sha256 == first.sha256 and again.replaced == first.sha256
    assert stored_files(store) == files
    row = session.get(PrintingScan, pid)
    assert row is not None and (row.sha256, row.width, row.height) == (first.sha256, 900, 1260)

    other = scans.add_scan(session=session, printing_id=pid, data=encoded("PNG", colour=BLUE), store_dir=store, now=NOW)
    assert other.sha256 != first.sha256 and other.replaced == first.sha256
    assert session.scalars(select(PrintingScan)).one().sha256 == other.sha256
    assert scans.remove_scan(session=session, printing_id=pid) == other.sha256
    assert session.get(PrintingScan, pid) is None
    assert scans.remove_scan(session=session, printing_id=pid) is None
    assert not list(store.glob(".staging-*"))


def test_find_printing_by_collector_number(sample_catalogue: Engine, session: Session) -> None:
    found = find_printing(session=session, number="m4-001")
    assert (found.number, found.set.code, found.set.game) == ("M4-001", "M4", "samsara")
    assert find_printing(session=session, number="001", set_code="M4").number == "M4-001"
    assert find_printing(session=session, number="M4-001", set_code="奇幻征途", game="samsara").number == "M4-001"
    with pytest.raises(UnknownPrinting, match="没有收藏编号"):
        find_printing(session=session, number="ZZ-999")
    with pytest.raises(UnknownPrinting, match="系列 M4 中没有编号"):
        find_printing(session=session, number="999", set_code="M4")


def _folder(tmp_path: Path, files: dict[str, bytes]) -> Path:
    folder = tmp_path / "folder"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / ".DS_Store").write_bytes(b"junk")  # hidden files are skipped
    return folder


def test_folder_matches_collector_numbers(sample_catalogue: Engine, session: Session, tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"M4-001.jpg": encoded("JPEG"), "002.png": encoded("PNG", colour=RED)})
    store = tmp_path / "scans"
    result = scans.add_scans_from_folder(
        session=session, game="samsara", set_code="m4", folder=folder, store_dir=store, now=NOW
    )
    assert [name for name, _r in result.stored] == ["002.png", "M4-001.jpg"]
    numbers = {session.get(Printing, r.printing_id).number for _n, r in result.stored}
    assert numbers == {"M4-001", "M4-002"}
    assert len(stored_files(store)) == 12


def test_folder_is_all_or_nothing(sample_catalogue: Engine, session: Session, tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        {
            "M4-001.jpg": encoded("JPEG"),
            "M4-002.png": b"text, not a picture",
            "M4-999.png": encoded("PNG"),
            "1.png": encoded("PNG"),  # the same printing as M4-001
        },
    )
    store = tmp_path / "scans"
    with pytest.raises(scans.ScanFolderError) as caught:
        scans.add_scans_from_folder(
            session=session, game="samsara", set_code="M4", folder=folder, store_dir=store, now=NOW
        )
    problems = {p.name: p.message.zh for p in caught.value.problems}
    # files are taken in name order: "1.png" claims M4-001 first, so "M4-001.jpg" is the duplicate
    assert set(problems) == {"M4-002.png", "M4-999.png", "M4-001.jpg"}
    assert problems["M4-001.jpg"] == "与 1.png 是同一张印刷"
    assert "不是图片" in problems["M4-002.png"] and "没有编号为「M4-999」" in problems["M4-999.png"]
    assert stored_files(store) == []
    assert session.scalars(select(PrintingScan)).all() == []


# ---------------------------------------------------------------------------- serving


def _store_scan(app: Any, engine: Engine, number: str, colour: tuple[int, int, int]) -> str:
    with transaction(engine) as session:
        result = scans.add_scan(
            session=session,
            printing_id=printing_id(session, number),
            data=encoded("PNG", colour=colour),
            store_dir=Path(app.instance_path) / "scans",
            now=NOW,
        )
    return result.sha256


def _card_image_src(client: Any, name: str) -> str:
    page = client.get(f"/cards/samsara/{name}").get_data(as_text=True)
    return "/images/" + page.split('<img src="/images/', 1)[1].split('"', 1)[0].replace("&amp;", "&")


def test_the_image_route_serves_the_scan_with_its_hash(sample_app: Any, client: Any, sample_catalogue: Engine) -> None:
    name = "小红帽·森林歌者"  # M4-001
    drawn_src = _card_image_src(client, name)
    drawn = client.get(drawn_src)
    assert "scan-" not in drawn_src
    sha = _store_scan(sample_app, sample_catalogue, "M4-001", RED)

    page = client.get(f"/cards/samsara/{name}").get_data(as_text=True)
    assert "卡图扫描" in page
    src = _card_image_src(client, name)
    assert f"v=scan-{sha[:16]}" in src and src != drawn_src  # a new URL: caches see the upload
    served = client.get(src)
    assert served.status_code == 200 and served.mimetype == "image/webp"
    assert served.headers["ETag"] == f'"{sha}"'
    assert served.data == (Path(sample_app.instance_path) / "scans" / sha[:2] / f"{sha}.normal.webp").read_bytes()
    assert Image.open(io.BytesIO(served.data)).convert("RGB").getpixel((200, 300)) == pytest.approx(RED, abs=8)
    assert client.get(src, headers={"If-None-Match": f'"{sha}"'}).status_code == 304
    # Any other URL of the printing (no version, a stale one) also gets the scan now.
    png = client.get(src.split("?")[0].replace(".webp", ".png"))
    assert png.mimetype == "image/png" and png.headers["ETag"] == f'"{sha}"'
    # The old drawn-face URL still names the drawn face (it was versioned by the card data).
    assert client.get(drawn_src).data == drawn.data

    grid = client.get("/cards?q=小红帽&game=samsara").get_data(as_text=True)
    assert f"v=scan-{sha[:16]}" in grid

    with transaction(sample_catalogue) as session:
        scans.remove_scan(session=session, printing_id=printing_id(session))
    assert _card_image_src(client, name) == drawn_src


# ---------------------------------------------------------------------------- the CLI


def test_cli_add_and_remove(sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path) -> None:
    scan = tmp_path / "card.jpg"
    scan.write_bytes(encoded("JPEG", (900, 1260)))
    result = runner.invoke(args=["images", "add", "m4-001", str(scan)])
    assert result.exit_code == 0, result.output
    assert "已保存 M4 M4-001 的卡图" in result.output and "900×1260" in result.output
    with Session(sample_catalogue) as session:
        row = session.get(PrintingScan, printing_id(session))
        assert row is not None
    assert len(stored_files(Path(sample_app.instance_path) / "scans")) == 6

    removed = runner.invoke(args=["images", "remove", "M4-001"])
    assert removed.exit_code == 0 and "已删除" in removed.output
    with Session(sample_catalogue) as session:
        assert session.get(PrintingScan, printing_id(session)) is None


@pytest.mark.parametrize(
    ("args", "content", "message"),
    [
        (["M4-001"], b"just text\n" * 50, "不是图片"),
        (["ZZ-404"], None, "没有收藏编号为「ZZ-404」"),
        (["M4-001", "--game", "keyforge"], None, "没有收藏编号"),
    ],
)
def test_cli_errors_exit_2_and_store_nothing(
    sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path, args: list[str], content: Any, message: str
) -> None:
    fake = tmp_path / "renamed.png"
    fake.write_bytes(content or encoded("PNG"))
    result = runner.invoke(args=["images", "add", args[0], str(fake), *args[1:]])
    assert result.exit_code == 2
    assert message in result.output and result.output.startswith("错误：") and result.output.count("\n") == 1
    assert stored_files(Path(sample_app.instance_path) / "scans") == []
    with Session(sample_catalogue) as session:
        assert session.scalars(select(PrintingScan)).all() == []


def test_cli_add_folder(sample_app: Any, runner: Any, sample_catalogue: Engine, tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"001.jpg": encoded("JPEG"), "M4-003.webp": encoded("WEBP")})
    ok = runner.invoke(args=["images", "add-folder", str(folder), "--set", "M4"])
    assert ok.exit_code == 0 and "已保存 2 张卡图" in ok.output

    (folder / "M4-004.png").write_bytes(b"nope")
    bad = runner.invoke(args=["images", "add-folder", str(folder), "--set", "M4"])
    assert bad.exit_code == 2
    assert "M4-004.png：不是图片" in bad.output and "整个文件夹都没有保存" in bad.output
    with Session(sample_catalogue) as session:
        assert len(session.scalars(select(PrintingScan)).all()) == 2  # the first run's, untouched

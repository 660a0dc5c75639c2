"""Card face images: ``/images/<game>/<set>/<number>.<size>.<fmt>``: the printing's uploaded
scan when it has one (catalog.images.scans), else the face drawn by catalog.images.faces.

The URL carries ``?v=<hash of data + renderer version>`` (see :func:`card_image_url`), so a
response may be cached for a year: changed data or a new renderer makes a new URL. With ``v``
the cache file is found from the URL alone; a ``v`` naming no stored file (stale, forged)
falls back to the database and the current face. A printing with a scan gets
``?v=scan-<hash>`` instead, so an upload (or its removal) changes every URL of that printing;
the scan is served with its content hash as the ETag.
"""

from __future__ import annotations

from typing import Any

from flask import Response, abort, current_app, g, request, url_for
from flask_babel import gettext as _

from catalog import browse
from catalog.games import GAMES
from catalog.images import keys as images
from catalog.lookup import UnknownPrinting, find_printing
from catalog.models import Card, CardSet, Printing, PrintingScan
from webapp.db import get_session
from webapp.helpers import cache_dir, scan_dir
from webapp.images import bp

MIMETYPES = {"webp": "image/webp", "png": "image/png"}


# (database, every game's catalogue_version) → printing id → scan hash. An upload or removal of
# a scan moves its game's catalogue_version (catalog.images.scans), so an entry is exact for
# its versions; the newest few are kept.
_SCANS: dict[tuple[str, str], dict[int, str]] = {}
_SCANS_KEPT = 8


def _scan_hashes() -> dict[int, str]:
    """printing id → scan hash, read once per request (scans are few: uploaded by admins), or
    once per catalogue version when this request already read the versions (a search, the
    answer cache: g.catalogue_versions) — then no statement at all."""
    if "scan_hashes" not in g:
        versions: dict[str, str] | None = g.get("catalogue_versions")
        if versions is None:
            g.scan_hashes = images.scan_hashes(get_session())
        else:
            from webapp.db import get_engine

            key = (get_engine().url.render_as_string(hide_password=False), repr(sorted(versions.items())))
            found = _SCANS.get(key)
            if found is None:
                found = images.scan_hashes(get_session())
                while len(_SCANS) >= _SCANS_KEPT:
                    _SCANS.pop(next(iter(_SCANS)))
                _SCANS[key] = found
            g.scan_hashes = found
    hashes: dict[int, str] = g.scan_hashes
    return hashes


@bp.app_template_global()
def card_scan(printing: Printing) -> str | None:
    """The hash of the printing's uploaded scan, or ``None`` when its face is drawn."""
    return _scan_hashes().get(printing.id or 0)


@bp.app_template_global()
def card_face(printings: list[tuple[Printing, CardSet]]) -> tuple[Printing, CardSet]:
    """The printing whose image a card page shows: the first with a scan, else the first."""
    hashes = _scan_hashes()
    return next((pair for pair in printings if (pair[0].id or 0) in hashes), printings[0])


@bp.app_template_global()
def card_image_url(game: str, card: Card, printing: Printing, card_set: CardSet, size: str = "normal") -> str:
    """The versioned URL of a printing's image (WebP): its scan's hash, else its data's."""
    scan = card_scan(printing)
    module = GAMES[game]
    version = f"scan-{scan[:16]}" if scan else images.image_version(card, printing, card_set, module)
    filename = f"{printing.number}.{size}.webp"
    return url_for("images.card_image", game_slug=game, set_code=card_set.code, filename=filename, v=version)


@bp.app_template_global()
def card_image_size(size: str) -> tuple[int, int]:
    return images.dimensions(size)


@bp.route("/images/<game_slug>/<set_code>/<filename>")
def card_image(game_slug: str, set_code: str, filename: str) -> Any:
    parts = filename.rsplit(".", 2)
    if len(parts) != 3 or parts[1] not in images.SIZES or parts[2] not in images.FORMATS:
        abort(404, _("没有这个卡图：%(name)s", name=filename))
    number, size, fmt = parts
    version = request.args.get("v", "")
    if version and game_slug in GAMES and not version.startswith("scan-"):
        # Warm path, no query: the URL names the exact file (see catalog.images.faces.cache_key).
        key = images.cache_key(game_slug, set_code, number, version, size, fmt)
        if key in request.if_none_match:
            return _image_response(None, key, fmt)
        data = images.cached(cache_dir(), key, fmt)
        if data is not None:
            return _image_response(data, key, fmt)
    module = GAMES.get(game_slug)
    session = get_session()
    game = browse.get_game_row(session, game_slug) if module else None
    try:
        found = find_printing(session=session, set_code=set_code, number=number, game=game_slug) if game else None
    except UnknownPrinting:
        found = None
    if found is None or module is None:
        abort(404, _("没有这张印刷：%(set)s %(number)s", set=set_code, number=number))
    printing, card, card_set = (
        session.get(Printing, found.id),
        session.get(Card, found.card_id),
        session.get(CardSet, found.set.id),
    )
    assert printing is not None and card is not None and card_set is not None
    scan = session.get(PrintingScan, printing.id)
    from catalog.images import scans  # Pillow: only drawing (a cold cache) pays for it

    face, etag = scans.face_of(
        card,
        printing,
        card_set,
        module,
        scan_sha=scan.sha256 if scan is not None else None,
        scan_dir=scan_dir(),
        cache_dir=cache_dir(),
        size=size,
        fmt=fmt,
    )
    if scan is not None and etag != scan.sha256:
        current_app.logger.warning("scan files of printing %s missing: %s", printing.id, scan.sha256)
    assert isinstance(face, bytes)  # with a cache folder the face comes encoded
    return _image_response(None if etag in request.if_none_match else face, etag, fmt)


def _image_response(data: bytes | None, etag: str, fmt: str) -> Response:
    """The image with its validators, or 304 Not Modified when ``data`` is ``None``."""
    response = Response(status=304) if data is None else Response(data, mimetype=MIMETYPES[fmt])
    response.set_etag(etag)
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response

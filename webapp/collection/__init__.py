"""The collection area: items, imports and exports, wants and haves.

Pages under ``/collection`` (all for the signed-in user's own collection): the item list
(``routes``), the +1/−1, for-trade and note forms every page posts to (``routes``), set
completion and the set checklist (``sets``), CSV import, the import list with undo, the
history and the export (``transfer``). ``cli`` is the ``lunzang collection`` command group.
"""

from flask import Blueprint

bp = Blueprint("collection", __name__, url_prefix="/collection")


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang collection`` (:mod:`webapp.collection.cli`) needs none of them."""
    from webapp.collection import routes, sets, transfer  # noqa: F401

    return bp

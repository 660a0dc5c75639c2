"""Card images: what a printing looks like, on a page, in a deck image or on a proxy sheet.

- ``keys``: what names a face without drawing it (sizes, data versions, cache keys; no Pillow);
- ``faces``: the face drawn from the card data (Pillow), cached by content;
- ``scans``: uploaded scans, checked by content, normalised, stored by hash;
- ``decks``: a checked deck as one PNG, and proxy sheets as a PDF.
"""

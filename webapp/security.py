"""Security headers on every response: one small ``after_request``.

The Content-Security-Policy allows scripts, styles, images and fetches from the site itself
only — no inline script (every script is a file under ``static/``; a test fails on a template
with inline script or an ``on…=`` handler), no plugins, no framing by another site. HSTS is
sent on HTTPS requests only (over plain HTTP it would be meaningless, and wrong on a LAN).
"""

from __future__ import annotations

from flask import Flask, Response, request

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",  # data:/blob: for image previews drawn by the page scripts
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",  # for browsers without frame-ancestors
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
}
HSTS = "max-age=31536000"  # a year; no includeSubDomains: the site may share a domain


def init_app(app: Flask) -> None:
    @app.after_request
    def security_headers(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if request.is_secure:
            response.headers.setdefault("Strict-Transport-Security", HSTS)
        return response

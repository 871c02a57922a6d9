"""The web client at ``/`` (static files under gateway/web, no build step) and the API
docs at ``/docs`` (Swagger UI) with its assets served from here, not from a CDN, so both
work on a machine without internet. No ReDoc: its page fetches a logo from its vendor's
CDN (a browser test found the request)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).resolve().parent  # the files beside this module
DOCS_ASSETS = Path(str(files("fastapi_offline") / "static"))


def mount_web(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=WEB), name="static")
    app.mount("/docs-assets", StaticFiles(directory=DOCS_ASSETS), name="docs-assets")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB / "index.html")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> FileResponse:
        # At the root, so its scope is the whole site (web push opens any table).
        return FileResponse(WEB / "sw.js", media_type="text/javascript")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="Raffe API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon.png",
        )

"""What the example servers share: the server with the extension, tool annotations, tokens and the caller."""

from __future__ import annotations

import argparse
import hmac
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import mcp_types
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context, MCPServer, authenticated_principal
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_rendering.document import Document
from mcp_rendering.envelope import RecordNotFoundError, RecordUris, read_record
from mcp_rendering.extension import registration
from mcp_rendering.extension import tool_annotations as rendering_tool_annotations
from mcp_rendering.tokens import MAX_TTL_SECONDS, ContinuationTokens, Keyring

__all__ = [
    "ANONYMOUS_CALLER",
    "BEARER_CLIENT_ID",
    "BEARER_ENV",
    "BEARER_SUBJECT",
    "DEFAULT_TOKEN_TTL",
    "MIN_BEARER_LENGTH",
    "MIN_TOKEN_TTL",
    "SECRET_ENV",
    "TOKEN_TTL_ENV",
    "OptionalBearer",
    "bearer_credential",
    "call_arguments",
    "caller_of",
    "continuation_tokens",
    "new_server",
    "record_text",
    "serve",
    "token_ttl",
    "tool_annotations",
]

ANONYMOUS_CALLER = "anonymous"
"""The anonymous authorization context (result continuation, section 5): every caller without authorization, over
stdio or HTTP. A token issued to it is a bearer capability for the rest of one result, which any anonymous caller
could fetch by making the original call."""

SECRET_ENV = "MCP_RENDERING_EXAMPLE_SECRET"
"""Environment variable holding the token signing secret, for servers run as several replicas."""

TOKEN_TTL_ENV = "MCP_RENDERING_EXAMPLE_TOKEN_TTL"
"""Environment variable holding the lifetime of a continuation token in seconds, the same for every replica: unset,
`DEFAULT_TOKEN_TTL`. A short one lets a test see an expired token refused without waiting a quarter of an hour."""

DEFAULT_TOKEN_TTL = 900
"""The lifetime of a continuation token when `TOKEN_TTL_ENV` is unset: 15 minutes."""

MIN_TOKEN_TTL = 5
"""The shortest lifetime `TOKEN_TTL_ENV` may set: a token that expires sooner could lapse before a host follows it."""


def token_ttl() -> int:
    """The lifetime of a continuation token, from `TOKEN_TTL_ENV` (`DEFAULT_TOKEN_TTL` when it is unset or empty).

    Raises `ValueError` when it is not a whole number of seconds from `MIN_TOKEN_TTL` to `MAX_TTL_SECONDS` (24 hours,
    the longest the specification allows).
    """
    raw = os.environ.get(TOKEN_TTL_ENV, "").strip()
    if not raw:
        return DEFAULT_TOKEN_TTL
    if not raw.isascii() or not raw.isdigit() or not MIN_TOKEN_TTL <= int(raw) <= MAX_TTL_SECONDS:
        raise ValueError(
            f"{TOKEN_TTL_ENV} must be a whole number of seconds from {MIN_TOKEN_TTL} to {MAX_TTL_SECONDS} "
            f"(24 hours), got {raw!r}"
        )
    return int(raw)


BEARER_ENV = "MCP_RENDERING_EXAMPLE_BEARER"
"""Environment variable holding one bearer credential that an example server over HTTP accepts as a principal,
while still serving callers without one in the anonymous context. Unset, every caller is anonymous."""

MIN_BEARER_LENGTH = 32
"""The shortest credential `BEARER_ENV` may hold: 32 characters, at least 128 bits when they are hexadecimal."""

BEARER_CLIENT_ID = "mcp-rendering-example"
BEARER_SUBJECT = "example-bearer"
"""The principal a request with the credential of `BEARER_ENV` is: a fixed identity, never the credential itself
(result continuation, section 5), so that its tokens stay valid whatever credential later names it."""


def bearer_credential() -> str | None:
    """The credential `BEARER_ENV` holds, or `None` when it is unset or empty.

    Raises `ValueError` when it is shorter than `MIN_BEARER_LENGTH` or holds anything but visible ASCII characters
    (it travels in an `Authorization` header).
    """
    raw = os.environ.get(BEARER_ENV, "")
    if not raw:
        return None
    if len(raw) < MIN_BEARER_LENGTH or not all("!" <= char <= "~" for char in raw):
        raise ValueError(
            f"{BEARER_ENV} must be at least {MIN_BEARER_LENGTH} visible ASCII characters without spaces "
            f"(for example the output of: python -c 'import secrets; print(secrets.token_hex(32))'), "
            f"got {len(raw)} characters"
        )
    return raw


class _FixedBearerVerifier:
    """The SDK's `TokenVerifier` for one fixed credential, compared in constant time."""

    def __init__(self, credential: str) -> None:
        self._credential = credential.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode("utf-8", "surrogateescape"), self._credential):
            return None
        return AccessToken(token=token, client_id=BEARER_CLIENT_ID, scopes=[], subject=BEARER_SUBJECT)


class OptionalBearer:
    """ASGI middleware: a request with an `Authorization` header goes through the SDK's own bearer authentication
    (`BearerAuthBackend` with a verifier of `credential`, `RequireAuthMiddleware`, `AuthContextMiddleware`, which
    sets what `authenticated_principal` reads), so the credential makes it the principal and any other credential is
    refused with 401; a request without one reaches `app` unauthenticated, in the anonymous context; a request with
    two is refused with 400.

    The SDK's own setup (`MCPServer(token_verifier=..., auth=...)`) requires a credential on every request; the
    examples serve anonymous callers too, so they place the same pieces behind this switch instead.
    """

    def __init__(self, app: ASGIApp, credential: str) -> None:
        self._anonymous = app
        self._authenticated = AuthenticationMiddleware(
            RequireAuthMiddleware(AuthContextMiddleware(app), required_scopes=[]),
            backend=BearerAuthBackend(_FixedBearerVerifier(credential)),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        presented = 0
        if scope["type"] in ("http", "websocket"):
            presented = sum(name.lower() == b"authorization" for name, _ in scope.get("headers", ()))
        if presented > 1:
            # Which of two credentials a server reads is the server's choice, not the caller's: refuse both.
            await PlainTextResponse("more than one Authorization header", status_code=400)(scope, receive, send)
            return
        await (self._authenticated if presented else self._anonymous)(scope, receive, send)


def new_server(name: str, instructions: str, *, plain: bool = False) -> MCPServer:
    """An `MCPServer` that advertises the rendering extension and carries the hints under `_meta`.

    With `plain`, the same server without the extension (no advertisement, no `_meta` carrier on tools, no SDK
    patch), so that a test can show what the extension changes and what it does not.
    """
    if plain:
        return MCPServer(name, instructions=instructions, version="0.1.0", log_level="WARNING")
    return MCPServer(
        name,
        instructions=instructions,
        version="0.1.0",
        # Installs the SDK patch, before any tool is declared; some examples page their results.
        **registration(continuation=True),
        # Keep stderr quiet: a host such as `mcp-rendering demo` shares the terminal with the server.
        log_level="WARNING",
    )


def tool_annotations(
    title: str, *, verbatim: bool | None = None, summarize_ok: bool | None = None, plain: bool = False
) -> mcp_types.ToolAnnotations:
    """The examples' annotations: read-only, closed-world tools with the rendering hints (none when `plain`)."""
    if plain:
        return mcp_types.ToolAnnotations(title=title, read_only_hint=True, open_world_hint=False)
    return rendering_tool_annotations(
        title=title,
        read_only_hint=True,
        open_world_hint=False,
        verbatim_hint=verbatim,
        summarize_ok_hint=summarize_ok,
    )


def serve(
    build: Callable[..., Any],
    argv: Sequence[str] | None = None,
    *,
    description: str,
    fastmcp_build: Callable[..., Any] | None = None,
) -> int:
    """The command line of an example server: stdio by default, `--http HOST:PORT` for streamable HTTP.

    `build(plain=..., record_links=...)` makes the `MCPServer`, and `fastmcp_build` (same arguments) the FastMCP one
    for `--framework fastmcp`; an example without it refuses that choice. `--plain` serves the server without the
    extension, and `--record-links` adds a `resource_link` block per record. Returns the exit status.
    """
    parser = argparse.ArgumentParser(description=description)
    frameworks = ("mcpserver",) if fastmcp_build is None else ("mcpserver", "fastmcp")
    parser.add_argument(
        "--framework", choices=frameworks, default="mcpserver", help="the server framework (default %(default)s)"
    )
    parser.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument("--plain", action="store_true", help="serve the same tools without the extension")
    parser.add_argument("--record-links", action="store_true", help="also add a resource_link block for each record")
    options = parser.parse_args(argv)
    fastmcp = options.framework == "fastmcp"
    try:
        token_ttl()
        credential = bearer_credential()
    except ValueError as error:
        parser.error(str(error))
    if credential is not None and (options.http is None or fastmcp):
        # Over stdio every caller is in the anonymous context (result continuation, section 5); the FastMCP build
        # has authentication of its own.
        parser.error(f"{BEARER_ENV} applies to --http with --framework mcpserver only")
    address: tuple[str, int] | None = None
    if options.http is not None:
        host, _, port = str(options.http).rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            parser.error(f"--http needs HOST:PORT with a port from 1 to 65535, got {options.http!r}")
        address = (host, int(port))
        if not os.environ.get(SECRET_ENV):
            # A per-process secret would bind tokens to this server instance: a continuation reaching another
            # replica, or this one restarted, would be refused, which 2026-07-28 forbids.
            parser.error(
                f"--http needs the token secret in {SECRET_ENV}, the same for every replica (for example "
                "the output of: python -c 'import secrets; print(secrets.token_hex(32))')"
            )
    make = fastmcp_build if fastmcp and fastmcp_build is not None else build
    try:
        server = make(plain=options.plain, record_links=options.record_links)
    except ModuleNotFoundError as missing:
        if not fastmcp or not (missing.name or "").startswith("fastmcp"):
            raise
        parser.exit(2, "--framework fastmcp needs FastMCP 4: pip install -e '.[fastmcp]' from a clone\n")
    if fastmcp:
        # No banner and quiet logs: a host such as `mcp-rendering demo` shares the terminal with the server.
        if address is None:
            server.run("stdio", show_banner=False, log_level="WARNING")
        else:
            server.run("http", show_banner=False, log_level="WARNING", host=address[0], port=address[1], path="/mcp")
    elif address is None:
        server.run("stdio")
    elif credential is None:
        server.run("streamable-http", host=address[0], port=address[1])
    else:
        _serve_http_with_bearer(server, address, credential)
    return 0


def _serve_http_with_bearer(server: MCPServer, address: tuple[str, int], credential: str) -> None:
    """Streamable HTTP as `MCPServer.run` serves it, with `OptionalBearer` in front of the app."""
    import uvicorn

    app = OptionalBearer(server.streamable_http_app(host=address[0]), credential)
    config = uvicorn.Config(app, host=address[0], port=address[1], log_level=server.settings.log_level.lower())
    anyio.run(uvicorn.Server(config).serve)


def continuation_tokens() -> ContinuationTokens:
    """The token issuer: a secret shared through the environment, or a fresh one for this process, and the lifetime
    `token_ttl()` gives.

    A stdio server lives exactly as long as its one connection, so a per-process secret loses nothing; `serve`
    refuses `--http` without the shared secret, so that every replica accepts every replica's tokens, and refuses
    a lifetime out of range.
    """
    secret = os.environ.get(SECRET_ENV) or os.urandom(32)
    return ContinuationTokens(Keyring.single(secret), ttl_seconds=token_ttl())


def caller_of(ctx: Context[Any, Any]) -> str:
    """The caller's authorization context, to which tokens and record reads are bound: the authenticated principal
    when there is one, else `ANONYMOUS_CALLER`. Never a transport session or connection: a 2026-07-28 client has
    none, and its next call may reach another connection or replica."""
    try:
        request_context = ctx.request_context
    except ValueError:  # no request in flight (a direct call in-process)
        return ANONYMOUS_CALLER
    return authenticated_principal(request_context) or ANONYMOUS_CALLER


def call_arguments(cursor: str | None, **arguments: Any) -> dict[str, Any]:
    """A paged tool's arguments as its tokens are bound to them: its own, plus `cursor` when the call carries one."""
    return arguments if cursor is None else {**arguments, "cursor": cursor}


def record_text(
    uri: str,
    *,
    uris: RecordUris,
    load: Callable[[Mapping[str, str], str], Document | None],
    ctx: Context[Any, Any],
) -> str:
    """A `resources/read` answer for a record URI, resolved for the caller of this request, or not-found."""
    try:
        return read_record(uri, uris=uris, load=load, caller=caller_of(ctx)).text
    except RecordNotFoundError as error:
        raise ResourceNotFoundError(str(error)) from None

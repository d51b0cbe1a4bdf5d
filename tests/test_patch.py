# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""The patch layer: fields added on both type layers, exact reversal, idempotence, refusal outside the range."""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Iterator
from typing import Any

import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.client import session as client_session
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from mcp_types import methods
from pydantic import TypeAdapter

import mcp_rendering
from mcp_rendering import Rendering
from tests.support.sdk_state import fingerprint_diff, sdk_fingerprint


@pytest.fixture(autouse=True)
def _clean_sdk() -> Iterator[None]:
    mcp_rendering.uninstall()
    yield
    mcp_rendering.uninstall()


def test_new_fields_build_and_serialize_under_their_wire_names() -> None:
    with mcp_rendering.installed():
        annotations = mcp_types.ToolAnnotations(verbatim_hint=True, summarize_ok_hint=False)
        result = mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text="x")],
            rendering=Rendering(mode="verbatim", guidance="Show all rows."),
        )
        assert annotations.model_dump(by_alias=True, exclude_none=True) == {
            "verbatimHint": True,
            "summarizeOkHint": False,
        }
        wire = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        assert wire["_rendering"] == {"mode": "verbatim", "guidance": "Show all rows."}


@pytest.mark.parametrize("module", [v2025, v2026])
def test_both_surface_versions_keep_the_fields(module: object) -> None:
    with mcp_rendering.installed():
        tool_cls = module.Tool  # type: ignore[attr-defined]
        result_cls = module.CallToolResult  # type: ignore[attr-defined]
        tool = tool_cls.model_validate(
            {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}
        )
        assert tool.model_dump(by_alias=True, exclude_none=True)["annotations"] == {"verbatimHint": True}
        result = result_cls.model_validate(
            {"content": [], "resultType": "complete", "_rendering": {"mode": "summarizable"}}
        )
        assert result.model_dump(by_alias=True, exclude_none=True)["_rendering"] == {"mode": "summarizable"}


def test_server_outbound_serialization_keeps_the_fields_for_every_version() -> None:
    with mcp_rendering.installed():
        for version in ("2025-06-18", "2025-11-25", "2026-07-28"):
            dumped = methods.serialize_server_result(
                "tools/call", version, {"content": [], "_rendering": {"mode": "verbatim"}, "resultType": "complete"}
            )
            assert dumped["_rendering"] == {"mode": "verbatim"}, version
            listed = methods.serialize_server_result(
                "tools/list",
                version,
                {
                    "tools": [{"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}],
                    "resultType": "complete",
                    "ttlMs": 0,
                    "cacheScope": "private",
                },
            )
            assert listed["tools"][0]["annotations"] == {"verbatimHint": True}, version


def test_client_does_not_strip_rendering_as_a_later_revision_field() -> None:
    with mcp_rendering.installed():
        for version in ("2025-06-18", "2025-11-25", "2026-07-28"):
            later = client_session._later_revision_fields("tools/call", version)  # pyright: ignore[reportPrivateUsage]
            assert "_rendering" not in later


def test_uninstall_restores_every_watched_model_exactly() -> None:
    before = sdk_fingerprint()
    mcp_rendering.install()
    during = sdk_fingerprint()
    assert during != before
    mcp_rendering.uninstall()
    after = sdk_fingerprint()
    assert after == before, fingerprint_diff(before, after)
    # And the unpatched behaviour is back: the key is dropped again.
    assert "verbatim_hint" not in mcp_types.ToolAnnotations.model_fields
    parsed = mcp_types.ToolAnnotations.model_validate({"verbatimHint": True})
    assert parsed.model_dump(by_alias=True, exclude_none=True) == {}


def test_install_is_idempotent_and_records_what_it_changed() -> None:
    first = mcp_rendering.install()
    second = mcp_rendering.install()
    assert first is second
    assert mcp_rendering.patch_record() is first
    assert "mcp_types._types.ToolAnnotations.verbatim_hint" in first.fields
    assert "mcp_types._v2025_11_25.CallToolResult.rendering" in first.fields
    assert "mcp_types._v2026_07_28.ListToolsResultResponse" in first.rebuilt_models
    assert "mcp.server.mcpserver.tools.base.Tool" in first.rebuilt_models
    assert "mcp.client.session._CallToolResultAdapter" in first.rebuilt_adapters
    assert "mcp_types.methods._adapter" in first.cleared_caches
    # Children are rebuilt before the models that embed them.
    order = first.rebuilt_models
    assert order.index("mcp_types._types.ToolAnnotations") < order.index("mcp_types._types.Tool")
    assert order.index("mcp_types._types.Tool") < order.index("mcp_types._types.ListToolsResult")
    mcp_rendering.uninstall()
    mcp_rendering.uninstall()
    assert not mcp_rendering.is_installed()
    assert mcp_rendering.patch_record() is None


def test_installed_context_manager_leaves_an_outer_installation_alone() -> None:
    mcp_rendering.install()
    with mcp_rendering.installed():
        assert mcp_rendering.is_installed()
    assert mcp_rendering.is_installed()
    mcp_rendering.uninstall()
    with mcp_rendering.installed():
        assert mcp_rendering.is_installed()
    assert not mcp_rendering.is_installed()


@pytest.mark.parametrize("version", ["1.26.0", "2.2.9", "3.0.0", "not-a-version"])
def test_refuses_an_sdk_outside_the_supported_range(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    before = sdk_fingerprint()
    real_version = importlib.metadata.version

    def fake_version(name: str) -> str:
        return version if name == "mcp" else real_version(name)

    monkeypatch.setattr(importlib.metadata, "version", fake_version)
    with pytest.raises(mcp_rendering.UnsupportedSDKError, match=r"(?i)mcp"):
        mcp_rendering.install()
    assert not mcp_rendering.is_installed()
    after = sdk_fingerprint()
    assert after == before, fingerprint_diff(before, after)


def test_a_failed_install_rolls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    before = sdk_fingerprint()

    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("adapter rebuild failed")

    monkeypatch.setattr(TypeAdapter, "rebuild", explode)
    with pytest.raises(RuntimeError, match="adapter rebuild failed"):
        mcp_rendering.install()
    monkeypatch.undo()
    assert not mcp_rendering.is_installed()
    after = sdk_fingerprint()
    assert after == before, fingerprint_diff(before, after)


def test_malformed_peer_values_read_as_absent_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with mcp_rendering.installed(), caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        annotations = mcp_types.ToolAnnotations.model_validate(
            {"verbatimHint": "yes", "summarizeOkHint": 1, "readOnlyHint": True}
        )
        assert annotations.verbatim_hint is None
        assert annotations.summarize_ok_hint is None
        assert annotations.read_only_hint is True
        for bad in (42, None, "verbatim", {"mode": 7}, {"guidance": "x" * 1001, "null_display": "n/a"}):
            result = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": bad, "isError": False})
            assert result.rendering is None
        # Member by member: the malformed members go, the others stay.
        mixed = {"mode": "tabular", "complete": "false", "guidance": "g", "continuation": {"argument": "c"}}
        result = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": mixed})
        assert result.rendering == Rendering(mode="tabular", guidance="g")
    assert "ignoring malformed verbatimHint" in caplog.text
    assert "ignoring malformed CallToolResult._rendering.complete" in caplog.text
    assert "ignoring malformed CallToolResult._rendering.continuation" in caplog.text


def test_a_subclass_defined_while_installed_inherits_the_fields() -> None:
    with mcp_rendering.installed():

        class AuditedResult(mcp_types.CallToolResult):
            reviewer: str | None = None

        parsed = AuditedResult.model_validate({"content": [], "_rendering": {"mode": "verbatim"}, "reviewer": "x"})
        assert parsed.rendering == Rendering(mode="verbatim")


# Each install recompiles ~27 models; 60 sequences of up to 8 steps already cover every transition pair many times.
@settings(max_examples=60)
@given(st.lists(st.booleans(), max_size=8))
def test_any_install_uninstall_sequence_ends_where_it_should(steps: list[bool]) -> None:
    """Property (e): whatever the sequence, the SDK is patched iff the last step installed, and unpatched means
    exactly as before."""
    mcp_rendering.uninstall()
    baseline = sdk_fingerprint()
    for step in steps:
        if step:
            mcp_rendering.install()
        else:
            mcp_rendering.uninstall()
    expected_installed = bool(steps) and steps[-1]
    assert mcp_rendering.is_installed() == expected_installed
    mcp_rendering.uninstall()
    after = sdk_fingerprint()
    assert after == baseline, fingerprint_diff(baseline, after)


def test_the_typed_annotations_helper_installs_and_builds_the_same_object() -> None:
    assert not mcp_rendering.is_installed()
    built = mcp_rendering.tool_annotations(verbatim_hint=True, read_only_hint=True, title="Ledger")
    assert mcp_rendering.is_installed()
    assert built == mcp_types.ToolAnnotations(verbatim_hint=True, read_only_hint=True, title="Ledger")
    assert built.model_dump(by_alias=True, exclude_none=True) == {
        "title": "Ledger",
        "readOnlyHint": True,
        "verbatimHint": True,
    }


def test_a_model_built_while_installed_is_recompiled_on_uninstall(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module imported after `install()` (as FastMCP's may be) compiles the patched schemas into its models;
    `uninstall()` must not leave them reading the extension's fields."""
    import sys
    import types

    mcp_rendering.install()
    late_module = types.ModuleType("mcp_types._late_test_module")
    monkeypatch.setitem(sys.modules, late_module.__name__, late_module)
    # Compiled as a module is: at import, with the annotations evaluated then (so, against the patched classes).
    source = (
        "import mcp_types\nfrom pydantic import BaseModel\nclass Holder(BaseModel):\n    tools: list[mcp_types.Tool]\n"
    )
    exec(compile(source, late_module.__name__, "exec", dont_inherit=True), vars(late_module))
    holder: Any = late_module.Holder  # pyright: ignore[reportAttributeAccessIssue]
    wire = {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}]}
    assert holder.model_validate(wire).model_dump(by_alias=True, exclude_none=True) == wire
    mcp_rendering.uninstall()
    dumped = holder.model_validate(wire).model_dump(by_alias=True, exclude_none=True)
    assert dumped["tools"][0]["annotations"] == {}

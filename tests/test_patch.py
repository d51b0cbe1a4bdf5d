# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""The patch layer: fields added on both type layers, exact reversal, idempotence, refusal outside the range."""

from __future__ import annotations

import gc
import importlib.metadata
import inspect
import json
import logging
import sys
import types
from collections.abc import Iterator
from types import MappingProxyType
from typing import Annotated, Any, get_args

import mcp_types
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from mcp.client import session as client_session
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from mcp_types import methods
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    TypeAdapter,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import Self

import mcp_rendering
from mcp_rendering import EXTENSION_ID, Rendering, patch
from mcp_rendering.reading import AS_SENT, resolve_rendering
from mcp_rendering.types import ToolAnnotationsDelta
from tests.support.sdk_state import fingerprint_diff, sdk_fingerprint
from tests.support.spy import calls_of

# Every test here takes well under a second: a install() or uninstall() that does not come back is a failure, not
# a hang of the suite.
pytestmark = pytest.mark.timeout(30)


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
            rendering=Rendering(mode="verbatim", guidance="Show all rows.", complete=True),
        )
        assert annotations.model_dump(by_alias=True, exclude_none=True) == {
            "verbatimHint": True,
            "summarizeOkHint": False,
        }
        wire = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        assert wire["_rendering"] == {"mode": "verbatim", "guidance": "Show all rows.", "complete": True}


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


def test_malformed_peer_values_read_as_what_shows_more_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """A malformed hint reads as the value that shows more, and the others still apply; nothing is coerced, and the
    message is never rejected. The core directive is kept as it came, for the reader, which reads it (on opt-in)."""
    with mcp_rendering.installed(), caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        annotations = mcp_types.ToolAnnotations.model_validate(
            {"verbatimHint": "false", "summarizeOkHint": 1, "readOnlyHint": True}
        )
        assert annotations.verbatim_hint is True
        assert annotations.summarize_ok_hint is False
        assert annotations.read_only_hint is True
        for bad in (42, "verbatim", {"mode": 7}, {"guidance": "x" * 1001, "null_display": "n/a"}, None):
            result = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": bad, "isError": False})
            assert result.rendering == bad
            effective = mcp_rendering.resolve_rendering(None, result, core_form=True)
            assert not effective.complete or bad is None
        mixed = {"mode": "tabular", "complete": "false", "guidance": "g"}
        result = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": mixed})
        effective = mcp_rendering.resolve_rendering(None, result, core_form=True)
        assert (effective.mode, effective.completeness, effective.guidance) == ("verbatim", "not-stated", "g")
    assert "malformed verbatimHint ('false'): not a valid value for this field; read as true" in caplog.text
    assert "malformed CallToolResult._rendering.complete" in caplog.text


def test_a_subclass_defined_while_installed_inherits_the_fields() -> None:
    with mcp_rendering.installed():

        class AuditedResult(mcp_types.CallToolResult):
            reviewer: str | None = None

        parsed = AuditedResult.model_validate({"content": [], "_rendering": {"mode": "verbatim"}, "reviewer": "x"})
        assert parsed.rendering == {"mode": "verbatim"}


# Each install recompiles ~27 models: a fifth of the profile's examples (20 in CI), beside one sequence that holds
# every transition (install after install, uninstall after install, and the other two).
@pytest.mark.timeout(300)
@settings(max_examples=settings().max_examples // 5)
@example([True, True, False, False, True])
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


# -- what install() recompiles: models of the SDK packages that exist when it runs


def _exec_module(name: str, source: str, monkeypatch: pytest.MonkeyPatch | None = None) -> types.ModuleType:
    """Compile `source` as module `name`, as an import would; registered in `sys.modules` when `monkeypatch` is
    given (and removed again at the end of the test), otherwise reachable only through its classes."""
    module = types.ModuleType(name)
    if monkeypatch is not None:
        monkeypatch.setitem(sys.modules, name, module)
    exec(compile(source, name, "exec", dont_inherit=True), vars(module))
    return module


@pytest.fixture
def collect_test_classes() -> Iterator[None]:
    """Classes made by a test stay listed in their bases' `__subclasses__()` until collected; collect them so that
    no later installation finds them."""
    yield
    gc.collect()


def _compiled_state(model: type[Any]) -> dict[str, int]:
    """The identity of every attribute of the class itself that pydantic or the patch may replace."""
    return {
        name: id(value)
        for name, value in vars(model).items()
        if name.startswith("__pydantic") or name in ("__annotations__", "__signature__")
    }


_SUBCLASSES = """
import mcp_types

class LedgerResult(mcp_types.CallToolResult):
    pass

def make():
    class DetachedResult(mcp_types.CallToolResult):
        pass
    return DetachedResult
"""


@pytest.mark.usefixtures("collect_test_classes")
def test_a_subclass_that_exists_at_install_gets_the_fields_and_gives_them_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A subclass made before `install()` does not inherit a field added to its base afterwards, so the patch adds
    it there too: to a subclass bound in an SDK module and to one reachable only as a subclass, in a module of the
    SDK's packages that is not even imported; `uninstall()` takes it away again, attribute by attribute."""
    bound = _exec_module("mcp.server.ledger_results", _SUBCLASSES, monkeypatch).LedgerResult
    detached = _exec_module("mcp.server.detached_results", _SUBCLASSES).make()
    wire = {"content": [], "_rendering": {"mode": "verbatim"}}
    before = {model: (set(vars(model)), _compiled_state(model)) for model in (bound, detached)}
    record = mcp_rendering.install()
    assert "mcp.server.ledger_results.LedgerResult.rendering" in record.fields
    assert "mcp.server.detached_results.make.<locals>.DetachedResult.rendering" in record.fields
    for model in (bound, detached):
        assert model.model_validate(wire).rendering == {"mode": "verbatim"}
        assert model.model_validate(wire).model_dump(by_alias=True, exclude_none=True)["_rendering"] == {
            "mode": "verbatim"
        }
    mcp_rendering.uninstall()
    for model in (bound, detached):
        # Including what install() set on a class that had none of its own (`__annotations__` here).
        assert (set(vars(model)), _compiled_state(model)) == before[model]
        assert "rendering" not in model.model_fields
        assert "_rendering" not in model.model_validate(wire).model_dump(by_alias=True, exclude_none=True)


@pytest.mark.usefixtures("collect_test_classes")
def test_install_leaves_the_models_of_an_application_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the SDK's packages are patched: a model of the application, even one derived from an SDK model, is not
    changed by `install()` (build it after `install()` to have the fields)."""
    application = _exec_module("ledger_app.results", _SUBCLASSES, monkeypatch).LedgerResult
    before = (set(vars(application)), _compiled_state(application))
    record = mcp_rendering.install()
    assert not [name for name in (*record.fields, *record.rebuilt_models) if "ledger_app" in name]
    assert (set(vars(application)), _compiled_state(application)) == before
    assert "rendering" not in application.model_fields


_PENDING = """
import mcp_types
from pydantic import BaseModel

class Outer(BaseModel):  # defined before what it embeds: a forward reference, left pending by pydantic
    inner: "Inner"

class Inner(BaseModel):
    tool: mcp_types.Tool

class Thread(BaseModel):  # two models that embed each other, one of them a patched model too
    tool: mcp_types.Tool | None = None
    replies: "list[Reply]" = []

class Reply(BaseModel):
    thread: Thread | None = None

class Dangling(BaseModel):  # a reference nothing resolves (yet)
    later: "NotDefinedYet"

class Plain(BaseModel):  # embeds nothing that is patched
    name: str
"""


@pytest.mark.usefixtures("collect_test_classes")
def test_pending_and_mutually_recursive_models_are_recompiled_in_dependency_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Models that pydantic left incomplete are finished first, so that the patch sees what they embed and no model
    compiles a patched schema behind its back; a model whose reference cannot be resolved does not stop it; models
    that embed each other are each recompiled once, the embedded model first; a model that embeds nothing patched
    is not touched."""
    module = _exec_module("mcp_types._pending_models", _PENDING, monkeypatch)
    assert not module.Outer.__pydantic_complete__
    plain = _compiled_state(module.Plain)
    record = mcp_rendering.install()
    names = [name for name in record.rebuilt_models if name.startswith("mcp_types._pending_models.")]
    prefix = "mcp_types._pending_models."
    assert sorted(names) == [prefix + name for name in ("Inner", "Outer", "Reply", "Thread")]
    assert names.index(prefix + "Inner") < names.index(prefix + "Outer")
    assert len(record.rebuilt_models) == len(set(record.rebuilt_models))
    assert _compiled_state(module.Plain) == plain
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}
    nested = {"inner": {"tool": tool}}
    replied = {"thread": {"tool": tool, "replies": []}}
    assert module.Outer.model_validate(nested).model_dump(by_alias=True, exclude_none=True) == nested
    assert module.Reply.model_validate(replied).model_dump(by_alias=True, exclude_none=True) == replied
    mcp_rendering.uninstall()
    dropped = {**tool, "annotations": {}}
    assert module.Outer.model_validate(nested).model_dump(by_alias=True, exclude_none=True) == {
        "inner": {"tool": dropped}
    }
    assert module.Reply.model_validate(replied).model_dump(by_alias=True, exclude_none=True) == {
        "thread": {"tool": dropped, "replies": []}
    }


_CYCLE = """
import mcp_types
from pydantic import BaseModel

class Thread(BaseModel):
    tool: mcp_types.Tool | None = None
    replies: "list[Reply]" = []

class Reply(BaseModel):
    thread: Thread | None = None
"""


def _thread(depth: int, tool: dict[str, Any]) -> dict[str, Any]:
    """A `Thread` of `_CYCLE` (as dumped without its nulls) holding `tool` `depth` replies down."""
    thread: dict[str, Any] = {"tool": tool, "replies": []}
    for _ in range(depth):
        thread = {"replies": [{"thread": thread}]}
    return thread


@pytest.mark.usefixtures("collect_test_classes")
def test_models_that_embed_each_other_read_the_fields_at_every_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """Models that embed each other are each recompiled against the patched model, not against the copy of one
    another compiled before `install()`: both read the fields at every depth of the cycle, and none after
    `uninstall()`."""
    module = _exec_module("mcp_types._cycle_models", _CYCLE, monkeypatch)
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}
    dropped = {**tool, "annotations": {}}
    with mcp_rendering.installed():
        for depth in range(4):
            thread = _thread(depth, tool)
            assert module.Thread.model_validate(thread).model_dump(by_alias=True, exclude_none=True) == thread
            reply = module.Reply.model_validate({"thread": thread})
            assert reply.model_dump(by_alias=True, exclude_none=True) == {"thread": thread}
    for depth in range(4):
        thread = module.Thread.model_validate(_thread(depth, tool))
        assert thread.model_dump(by_alias=True, exclude_none=True) == _thread(depth, dropped)


@pytest.mark.usefixtures("collect_test_classes")
def test_models_built_while_installed_that_embed_each_other_lose_the_fields_at_every_depth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Models of a cycle compiled while the patch is installed are recompiled by `uninstall()` against the
    restored model, each from its fields: not one of them keeps reading the fields through the other's copy."""
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}
    dropped = {**tool, "annotations": {}}
    mcp_rendering.install()
    module = _exec_module("mcp_types._late_cycle_models", _CYCLE, monkeypatch)
    for depth in range(4):
        thread = _thread(depth, tool)
        assert module.Thread.model_validate(thread).model_dump(by_alias=True, exclude_none=True) == thread
    mcp_rendering.uninstall()
    for depth in range(4):
        thread = module.Thread.model_validate(_thread(depth, tool))
        assert thread.model_dump(by_alias=True, exclude_none=True) == _thread(depth, dropped)
        reply = module.Reply.model_validate({"thread": _thread(depth, tool)})
        assert reply.model_dump(by_alias=True, exclude_none=True) == {"thread": _thread(depth, dropped)}


@pytest.mark.usefixtures("collect_test_classes")
def test_a_model_derived_from_a_recompiled_model_is_recompiled_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dependency runs through a base as well as through a field: a subclass of a model that embeds a patched one
    is recompiled with it, even when it declares none of the fields that embed it."""
    source = "import mcp_types\n\nclass BareTool(mcp_types.Tool):\n    annotations: None = None\n"
    _exec_module("mcp.server.bare_tools", source, monkeypatch)
    record = mcp_rendering.install()
    assert "mcp.server.bare_tools.BareTool" in record.rebuilt_models
    assert record.rebuilt_models.index("mcp_types._types.Tool") < record.rebuilt_models.index(
        "mcp.server.bare_tools.BareTool"
    )


class _CacheLookalike:
    """A module-level object that answers like a functools cache but cannot say which module it belongs to."""

    def __call__(self) -> None:
        return None

    def cache_clear(self) -> None:
        raise AssertionError("not a cache of any module: must not be cleared")

    def cache_info(self) -> None:
        return None

    def __getattribute__(self, name: str) -> Any:
        if name == "__module__":
            raise AttributeError(name)
        return object.__getattribute__(self, name)


def test_an_adapter_or_cache_bound_in_two_modules_is_handled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """An adapter or a cache imported into another module is the same object: it is recompiled (or emptied) once
    and listed once, under the module that had it first; an object that only looks like a cache is left alone."""
    module = types.ModuleType("mcp.server.reexports")
    module.results = client_session._CallToolResultAdapter  # pyright: ignore[reportPrivateUsage]
    module.serialize_cache = methods._adapter  # pyright: ignore[reportPrivateUsage]
    module.lookalike = _CacheLookalike()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    record = mcp_rendering.install()
    assert "mcp.client.session._CallToolResultAdapter" in record.rebuilt_adapters
    assert "mcp.server.reexports.results" not in record.rebuilt_adapters
    resolved = [
        getattr(sys.modules[name.rpartition(".")[0]], name.rpartition(".")[2]) for name in record.rebuilt_adapters
    ]
    assert len({id(adapter) for adapter in resolved}) == len(resolved)
    assert "mcp_types.methods._adapter" in record.cleared_caches
    assert not [name for name in record.cleared_caches if name.startswith("mcp.server.reexports.")]


def test_the_clients_result_adapter_reads_the_fields_while_installed_and_drops_them_after() -> None:
    """Module-level adapters hold compiled copies of the models: they are recompiled on install and put back on
    uninstall, so the client reads `_rendering` exactly while the patch is installed."""
    adapter = client_session._CallToolResultAdapter  # pyright: ignore[reportPrivateUsage]
    wire = {"content": [], "_rendering": {"mode": "verbatim"}}
    with mcp_rendering.installed():
        assert adapter.validate_python(wire).rendering == {"mode": "verbatim"}
    parsed = adapter.validate_python(wire)
    assert "_rendering" not in parsed.model_dump(by_alias=True, exclude_none=True)
    assert parsed.model_dump(by_alias=True, exclude_none=True)["content"] == []


def test_a_failure_after_the_adapters_were_recompiled_rolls_everything_back(monkeypatch: pytest.MonkeyPatch) -> None:
    before = sdk_fingerprint()

    def explode() -> None:
        raise RuntimeError("cache clear failed")

    monkeypatch.setattr(methods._adapter, "cache_clear", explode)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(RuntimeError, match="cache clear failed"):
        mcp_rendering.install()
    monkeypatch.undo()
    assert not mcp_rendering.is_installed()
    after = sdk_fingerprint()
    assert after == before, fingerprint_diff(before, after)


def test_refuses_to_overwrite_a_field_the_sdk_already_defines(monkeypatch: pytest.MonkeyPatch) -> None:
    """A later SDK that defines one of the fields itself is not silently overwritten; what was patched before the
    conflict is rolled back."""
    before = sdk_fingerprint()
    model = v2026.ToolAnnotations
    own = model.__pydantic_fields__["read_only_hint"]  # a boolean hint of its own, as a later SDK might add
    monkeypatch.setattr(model, "__pydantic_fields__", {**model.__pydantic_fields__, "verbatim_hint": own})
    with pytest.raises(RuntimeError) as raised:
        mcp_rendering.install()
    assert str(raised.value) == (
        "mcp_types._v2026_07_28.ToolAnnotations already defines 'verbatim_hint'; refusing to overwrite an SDK field"
    )
    monkeypatch.undo()
    assert not mcp_rendering.is_installed()
    after = sdk_fingerprint()
    assert after == before, fingerprint_diff(before, after)


# -- the fields added


def test_a_payload_without_the_extension_dumps_exactly_as_before() -> None:
    """An unset field is left out of every dump, whatever the options, so the patch changes no existing payload."""
    annotations = {"title": "Ledger", "readOnlyHint": True}
    result = {"content": [{"type": "text", "text": "x"}]}
    dumps: list[Any] = []
    for _ in range(2):
        dumps.append(
            [
                mcp_types.ToolAnnotations.model_validate(annotations).model_dump(by_alias=True),
                mcp_types.ToolAnnotations.model_validate(annotations).model_dump(),
                mcp_types.CallToolResult.model_validate(result).model_dump(by_alias=True, mode="json"),
                mcp_types.CallToolResult.model_validate(result).model_dump_json(by_alias=True),
            ]
        )
        mcp_rendering.install()
    assert dumps[0] == dumps[1]
    # A value that is set is dumped, under its wire name.
    hinted = mcp_types.ToolAnnotations.model_validate({**annotations, "verbatimHint": False})
    assert hinted.model_dump(by_alias=True)["verbatimHint"] is False


def test_the_added_fields_are_declared_on_the_class_with_their_types() -> None:
    """The class's own annotations declare each added field with the extension's type (what `typing` and
    documentation tools read), and lose it again on uninstall."""
    with mcp_rendering.installed():
        declared = inspect.get_annotations(mcp_types.ToolAnnotations)
        assert get_args(declared["verbatim_hint"])[0] == ToolAnnotationsDelta.model_fields["verbatim_hint"].annotation
        declared = inspect.get_annotations(v2025.CallToolResult)
        assert get_args(declared["rendering"])[0] is Any  # the wire value, kept for the reader
    assert "verbatim_hint" not in inspect.get_annotations(mcp_types.ToolAnnotations)


def test_a_field_keeps_its_wire_name_or_its_own_name_and_its_description(caplog: pytest.LogCaptureFixture) -> None:
    """What `_patched_field` builds for any delta field: its alias, else its name, on the wire; its description in
    the schema; nothing in a dump while unset; and a malformed value without a safe reading read as absent."""

    class Delta(BaseModel):
        plain: bool | None = Field(default=None, description="A hint without a wire alias.")
        aliased: bool | None = Field(default=None, alias="aliasedHint", description="A hint with one.")

    class Holder(BaseModel):
        pass

    made = {name: patch._patched_field(name, info) for name, info in Delta.model_fields.items()}  # pyright: ignore[reportPrivateUsage]
    assert made["plain"][1].alias == "plain"
    assert made["aliased"][1].alias == "aliasedHint"
    assert made["plain"][1].description == "A hint without a wire alias."
    assert made["aliased"][1].description == "A hint with one."
    fields = {**Holder.__pydantic_fields__, **{name: info for name, (_, info) in made.items()}}
    Holder.__pydantic_fields__ = fields
    Holder.model_rebuild(force=True)
    schema = Holder.model_json_schema(by_alias=True)["properties"]
    assert schema["plain"]["description"] == "A hint without a wire alias."
    assert schema["aliasedHint"]["description"] == "A hint with one."
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        parsed = Holder.model_validate({"plain": True, "aliasedHint": "maybe"})
    assert parsed.model_dump(by_alias=True) == {"plain": True}
    assert _last_warning(caplog) == "malformed aliasedHint ('maybe'): not a valid value for this field; read as absent"


def test_the_core_directive_is_kept_as_it_came_and_a_typed_one_in_its_wire_form() -> None:
    with mcp_rendering.installed():
        for value in ({}, {"unknownMember": 1}, [1], "x", 0):
            result = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": value})
            assert result.rendering == value
        built = Rendering(mode="verbatim", guidance="All rows.", complete=True)
        kept = mcp_types.CallToolResult(content=[], rendering=built).rendering
        assert kept == {"mode": "verbatim", "guidance": "All rows.", "complete": True}


# -- messages a person reads


def _last_warning(caplog: pytest.LogCaptureFixture) -> str:
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert warnings
    return warnings[-1]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("yes", "'yes'"),
        (1, "1"),
        ("x" * 78, "'" + "x" * 78 + "'"),  # a repr of 80 characters is shown whole
        ("x" * 79, "'" + "x" * 76 + "..."),  # a longer one is cut to 80 characters
    ],
)
@pytest.mark.parametrize(("hint", "read_as"), [("verbatimHint", "true"), ("summarizeOkHint", "false")])
def test_the_warning_for_a_malformed_hint_names_it_quotes_it_and_says_how_it_reads(
    caplog: pytest.LogCaptureFixture, value: object, shown: str, hint: str, read_as: str
) -> None:
    with mcp_rendering.installed(), caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        mcp_types.ToolAnnotations.model_validate({hint: value})
    assert _last_warning(caplog) == f"malformed {hint} ({shown}): not a valid value for this field; read as {read_as}"


def test_install_logs_what_it_changed(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="mcp_rendering"):
        record = mcp_rendering.install()
    messages = [entry.getMessage() for entry in caplog.records if entry.levelno == logging.DEBUG]
    assert f"mcp_rendering installed: {len(record.fields)} fields, {len(record.rebuilt_models)} models" in messages


def _fake_sdk_version(monkeypatch: pytest.MonkeyPatch, version: str | None) -> None:
    real_version = importlib.metadata.version

    def fake_version(name: str) -> str:
        if name != "mcp":
            return real_version(name)
        if version is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(importlib.metadata, "version", fake_version)


@pytest.mark.parametrize("version", ["2.3.0", "2.17.1"])
def test_accepts_every_release_of_the_supported_range_and_records_it(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    _fake_sdk_version(monkeypatch, version)
    assert mcp_rendering.install().sdk_version == version


def test_the_record_names_the_installed_sdk() -> None:
    assert mcp_rendering.install().sdk_version == importlib.metadata.version("mcp")


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (None, "the MCP Python SDK (`mcp`) is not installed: pip install 'mcp-rendering[sdk]'"),
        ("banana", "cannot read the MCP Python SDK version 'banana'"),
        (
            "3.0.0",
            "mcp_rendering supports mcp>=2.3,<3; found mcp 3.0.0. "
            "Install a supported SDK or a release of mcp-rendering made for this one.",
        ),
        (
            "2.2.9",
            "mcp_rendering supports mcp>=2.3,<3; found mcp 2.2.9. "
            "Install a supported SDK or a release of mcp-rendering made for this one.",
        ),
    ],
)
def test_the_refusal_says_what_was_found_and_what_to_do(
    monkeypatch: pytest.MonkeyPatch, version: str | None, message: str
) -> None:
    _fake_sdk_version(monkeypatch, version)
    with pytest.raises(mcp_rendering.UnsupportedSDKError) as raised:
        mcp_rendering.install()
    assert str(raised.value) == message
    assert not mcp_rendering.is_installed()


def test_a_directive_read_from_the_wire_dumps_back_as_it_came() -> None:
    """The core directive is the peer's value, kept whole: nothing added, nothing dropped, even a malformed member."""
    with mcp_rendering.installed():
        for model in (mcp_types.CallToolResult, v2025.CallToolResult, v2026.CallToolResult):
            for wire in ({"mode": "verbatim", "nullDisplay": "n/a", "complete": False}, {"guidance": 5, "x": None}):
                result = model.model_validate({"content": [], "resultType": "complete", "_rendering": wire})
                assert result.model_dump(by_alias=True, exclude_unset=True, mode="json")["_rendering"] == wire


# -- what the lenient readers keep


def test_a_value_the_fields_own_type_accepts_is_read_by_that_type_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The fallback takes only what the field's own schema refuses: a field that coerces (a lax boolean here) keeps
    its coercions, and only a value it cannot read is logged and read safely."""
    reader = patch._ReadMalformedSafely("plainHint")  # pyright: ignore[reportPrivateUsage]
    adapter = TypeAdapter(Annotated[bool | None, reader])
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        assert [adapter.validate_python(value) for value in ("yes", 1, False, None)] == [True, True, False, None]
        assert adapter.validate_json('"off"') is False
        assert not caplog.records
        assert adapter.validate_python("maybe") is None
    assert _last_warning(caplog) == "malformed plainHint ('maybe'): not a valid value for this field; read as absent"


def test_either_branch_of_a_lenient_hint_documents_the_hints_own_type() -> None:
    """A JSON schema generated from the compiled hint, from the whole union or from either of its branches, shows
    what the field means (a boolean or null), never the fallback that reads a bad value."""
    adapter = TypeAdapter(Annotated[StrictBool | None, patch._ReadMalformedSafely("verbatimHint")])  # pyright: ignore[reportPrivateUsage]
    schema = adapter.core_schema
    assert schema["type"] == "union"
    documented = {"anyOf": [{"type": "boolean"}, {"type": "null"}]}
    assert adapter.json_schema() == documented
    assert [GenerateJsonSchema().generate(choice) for choice in schema["choices"]] == [documented, documented]  # pyright: ignore[reportArgumentType]


def test_a_field_added_from_a_delta_without_alias_is_named_by_its_own_name(caplog: pytest.LogCaptureFixture) -> None:
    """`_add_fields` gives every added field an explicit wire name, the delta's alias or else the field's name, and
    records it under the model's qualified name."""

    class Delta(BaseModel):
        plain: bool | None = None

    class Holder(BaseModel):
        kept: int = 0

    added: list[str] = []
    patch._add_fields(Holder, Delta, added)  # pyright: ignore[reportPrivateUsage]
    Holder.model_rebuild(force=True)
    assert added == [f"{Holder.__module__}.{Holder.__qualname__}.plain"]
    assert Holder.__pydantic_fields__["plain"].alias == "plain"
    assert list(inspect.get_annotations(Holder)) == ["kept", "plain"]
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        assert Holder.model_validate({"plain": "maybe"}).model_dump() == {"kept": 0}
    assert _last_warning(caplog) == "malformed plain ('maybe'): not a valid value for this field; read as absent"


def test_the_carrier_decides_and_the_core_form_never_stands_behind_it() -> None:
    """With the core form enabled, a result whose carrier is present is read from the carrier alone."""
    meta = {EXTENSION_ID: {"complete": True}}
    with mcp_rendering.installed():
        for core in ({"mode": "summarizable", "complete": False}, 0, {"complete": "x"}):
            parsed = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": core, "_meta": meta})
            effective = resolve_rendering(None, parsed, core_form=True)
            # The carrier states no mode: a present directive without one reads verbatim.
            assert (effective.complete, effective.mode) == (True, "verbatim")
            assert effective.directive is not None and effective.directive.completeness == "complete"


def test_a_models_children_are_the_models_it_embeds_and_derives_from() -> None:
    """What the dependency walk follows from a model: the models named in its fields' types and its model bases;
    never the model itself (a self-reference is no dependency), `BaseModel`, or a base that is not a model."""

    class Leaf(BaseModel):
        name: str = ""

    class Node(BaseModel):
        leaf: Leaf | None = None
        nodes: list[Node] = []
        by_name: dict[str, tuple[Leaf, ...]] = {}

    class Mixin:
        pass

    class Branch(Node, Mixin):
        pass

    assert patch._children(Leaf) == set()  # pyright: ignore[reportPrivateUsage]
    assert patch._children(Node) == {Leaf}  # pyright: ignore[reportPrivateUsage]
    assert patch._children(Branch) == {Leaf, Node}  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("by_name", [False, True])
def test_a_directive_validated_with_field_names_allowed_keeps_its_well_formed_members(by_name: bool) -> None:
    """Whether the caller lets the result's other fields be named by field name (`by_name`) or not, the directive is
    read by its wire names and its well-formed members all stay beside a malformed one."""
    mcp_rendering.install()
    null_key = "nullDisplay"
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        parsed = mcp_types.CallToolResult.model_validate(
            {"content": [], "_rendering": {null_key: "n/a", "mode": 7}}, by_name=by_name
        )
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)
    assert parsed.rendering == {null_key: "n/a", "mode": 7}  # pyright: ignore[reportAttributeAccessIssue]


def test_only_annotations_with_a_malformed_hint_reach_the_marking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Well-formed annotations validate in pydantic-core alone, in a model or in a list of tools (what keeps the
    patch's cost near zero); annotations with a malformed hint, and only those, are marked; annotations invalid in
    another way still fail, naming the member."""
    calls = calls_of(monkeypatch, patch, "_mark_malformed_hints")
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    clean = {"readOnlyHint": True, "verbatimHint": False, "summarizeOkHint": True}
    malformed = {"readOnlyHint": True, "verbatimHint": "yes"}
    with mcp_rendering.installed():
        mcp_types.ListToolsResult.model_validate({"tools": [{**tool, "annotations": clean}] * 3})
        mcp_types.ToolAnnotations.model_validate(clean)
        assert calls == []
        listed = mcp_types.ListToolsResult.model_validate({"tools": [{**tool, "annotations": malformed}]})
        assert [value for value, _handler in calls] == [malformed]
        assert listed.tools[0].model_dump(by_alias=True, exclude_none=True)["annotations"][AS_SENT] == {
            "verbatimHint": "yes"
        }
        with pytest.raises(ValidationError, match="readOnlyHint"):
            mcp_types.Tool.model_validate({**tool, "annotations": {"readOnlyHint": "maybe", "verbatimHint": True}})


def test_annotations_serialize_as_the_model_they_are_whatever_the_options() -> None:
    """The marking changes how annotations validate, never how they are written: every dump option, a value set
    without validation, and a model compiled after the patch write the fields as the unpatched model does."""
    with mcp_rendering.installed():
        annotations = mcp_types.ToolAnnotations(read_only_hint=True)
        assert json.loads(annotations.model_dump_json(serialize_as_any=True))["read_only_hint"] is True
        assert annotations.model_dump(serialize_as_any=True)["read_only_hint"] is True
        loose = mcp_types.ToolAnnotations(title="Ledger")
        loose.read_only_hint = 1  # pyright: ignore[reportAttributeAccessIssue]
        with pytest.warns(UserWarning, match="serializer warnings"):
            assert isinstance(loose.model_dump(), dict)

        class Holder(BaseModel):
            held: mcp_types.ToolAnnotations

        holder = Holder.model_validate({"held": {"summarizeOkHint": "x", "readOnlyHint": True}})
        assert holder.model_dump(by_alias=True, exclude_none=True) == {
            "held": {"readOnlyHint": True, "summarizeOkHint": False, AS_SENT: {"summarizeOkHint": "x"}}
        }
        with pytest.raises(ValidationError) as raised:
            Holder.model_validate({"held": {"readOnlyHint": "x"}})
        # Both choices report the member, once each: none is reported through the class's own validator again.
        assert [error["loc"][-1] for error in raised.value.errors()] == ["readOnlyHint", "readOnlyHint"]


def test_a_subclass_marks_too_and_keeps_what_it_adds() -> None:
    """A subclass of the annotations defined under the patch, with its own validator, serializer or extras: a
    malformed hint is marked as in the base, and what the subclass adds works as without the patch."""
    with mcp_rendering.installed():

        class Checked(mcp_types.ToolAnnotations):
            @model_validator(mode="after")
            def unchanged(self) -> Self:
                return self

        class Open(mcp_types.ToolAnnotations):
            model_config = ConfigDict(extra="allow")

        class Written(mcp_types.ToolAnnotations):
            @model_serializer
            def written(self) -> dict[str, Any]:
                return {"written": True}

        for model in (Checked, Open):
            dumped = model.model_validate({"summarizeOkHint": "yes", "x": 1}).model_dump(
                by_alias=True, exclude_none=True
            )
            assert dumped[AS_SENT] == {"summarizeOkHint": "yes"}
        assert Open.model_validate({"x": 1}).model_dump(exclude_none=True) == {"x": 1}
        assert Written.model_validate({"summarizeOkHint": "yes"}).model_dump() == {"written": True}
        described = mcp_types.ToolAnnotations.model_json_schema(mode="serialization")
        assert described["title"] == "ToolAnnotations" and described["description"]


def test_install_after_a_subclass_was_defined_under_an_earlier_install_works(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model of a scanned package defined while installed (a module imported late) inherits the added fields;
    uninstall takes them away with the patch, so that the next install adds them again instead of refusing."""
    module = types.ModuleType("mcp_types._late_subclass")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with mcp_rendering.installed():

        class Late(mcp_types.ToolAnnotations):
            pass

        Late.__module__ = module.__name__
        module.Late = Late  # pyright: ignore[reportAttributeAccessIssue]
        assert "verbatim_hint" in Late.model_fields
    assert "verbatim_hint" not in Late.model_fields
    with mcp_rendering.installed():
        assert "verbatim_hint" in mcp_types.ToolAnnotations.model_fields


def test_an_assignment_learnt_under_the_patch_is_forgotten_with_it() -> None:
    with mcp_rendering.installed():
        mcp_types.ToolAnnotations().verbatim_hint = True  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(ValueError, match="verbatim_hint"):
        mcp_types.ToolAnnotations().verbatim_hint = True  # pyright: ignore[reportAttributeAccessIssue]


def test_a_malformed_hint_is_marked_from_any_input_the_model_reads() -> None:
    """A mapping that is not a dict, an object read by attributes, and a value nested past any depth `repr` can
    take are marked (and logged) like a dict's member, never an error."""

    class Source:
        summarize_ok_hint = "yes"

    nested: Any = "deep"
    for _ in range(100_000):
        nested = [nested]
    with mcp_rendering.installed():
        for wire in (
            mcp_types.ToolAnnotations.model_validate(MappingProxyType({"summarizeOkHint": "yes"})),
            mcp_types.ToolAnnotations.model_validate(Source(), from_attributes=True),
        ):
            assert wire.model_dump(by_alias=True, exclude_none=True)[AS_SENT] == {"summarizeOkHint": "yes"}
        deep = mcp_types.ToolAnnotations.model_validate({"summarizeOkHint": nested})
        assert deep.summarize_ok_hint is False  # pyright: ignore[reportAttributeAccessIssue]
        assert isinstance(deep.model_dump(by_alias=True, exclude_none=True)[AS_SENT]["summarizeOkHint"], str)


def test_a_malformed_hint_is_marked_as_it_came_and_the_mark_survives_every_conversion() -> None:
    """The field holds the safe value (what shows more); `AS_SENT` keeps the hint as it came, so that the reader reads
    the annotations unclean, as it reads the wire, through dumps, copies and re-validation."""
    with mcp_rendering.installed():
        wire = {"summarizeOkHint": "yes", "readOnlyHint": True}
        annotations = mcp_types.ToolAnnotations.model_validate(wire)
        assert annotations.summarize_ok_hint is False
        dumped = annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert dumped == {"readOnlyHint": True, "summarizeOkHint": False, AS_SENT: {"summarizeOkHint": "yes"}}
        again = mcp_types.ToolAnnotations.model_validate(dumped)
        assert again.model_dump(mode="json", by_alias=True, exclude_none=True) == dumped
        assert annotations.model_copy().model_dump(mode="json", by_alias=True, exclude_none=True) == dumped
        clean = mcp_types.ToolAnnotations.model_validate({"summarizeOkHint": True})
        assert AS_SENT not in clean.model_dump(mode="json", by_alias=True, exclude_none=True)
        tool = {"name": "t", "inputSchema": {"type": "object"}}
        tools: list[Any] = [
            *(
                mcp_types.Tool(name="t", input_schema={"type": "object"}, annotations=form)
                for form in (annotations, again)
            ),
            {**tool, "annotations": dumped},
        ]
        for form in tools:
            read = mcp_rendering.resolve_rendering(form, None, core_form=True)
            assert (read.mode, read.hints.verbatim_hint, read.hints.summarize_ok_hint) == ("verbatim", True, False)
        # The same hint well-formed reads as it says: what tells the marked annotations apart is the mark.
        plain = mcp_types.Tool(name="t", input_schema={"type": "object"}, annotations=clean)
        assert mcp_rendering.resolve_rendering(plain, None, core_form=True).mode == "summarizable"


@pytest.mark.parametrize(
    "mark", [{"summarizeOkHint": True}, {"summarizeOkHint": None}, {"x": "yes"}, {}, [], "yes", 0, None]
)
def test_an_altered_mark_never_makes_annotations_cleaner(mark: Any) -> None:
    """A mark naming a well-formed value, another member, or not an object makes the annotations unclean."""
    annotations = {"summarizeOkHint": True, AS_SENT: mark}
    wire = {"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}
    read = mcp_rendering.resolve_rendering(wire, None, core_form=True)
    assert (read.mode, read.hints.summarize_ok_hint) == ("verbatim", False)
    # Parsed by the patched SDK, from Python or from JSON, the mark reads as the wire's does: null included.
    with mcp_rendering.installed():
        for parsed in (mcp_types.Tool.model_validate(wire), mcp_types.Tool.model_validate_json(json.dumps(wire))):
            read = mcp_rendering.resolve_rendering(parsed, None, core_form=True)
            assert (read.mode, read.hints.summarize_ok_hint) == ("verbatim", False)


def test_the_mark_is_described_as_the_object_it_is() -> None:
    with mcp_rendering.installed():
        schema = mcp_types.ToolAnnotations.model_json_schema(by_alias=True)
    assert schema["properties"][AS_SENT]["type"] == "object"


def test_a_hint_under_its_python_name_in_wire_json_is_not_the_hint() -> None:
    """Annotations marked for a malformed hint record only what the wire names: a member under the Python name
    (`summarize_ok_hint`) is an unknown member to the wire reader, so the model must not take it for the hint."""
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    annotations = {"verbatimHint": "yes", "summarize_ok_hint": "no"}
    wire = {**tool, "annotations": annotations}
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        with mcp_rendering.installed():
            model = mcp_types.Tool.model_validate(wire, by_name=False)
            marked = model.annotations
            assert marked is not None
            assert getattr(marked, "rendering_as_sent", None) == {"verbatimHint": "yes"}
            from_model = mcp_rendering.resolve_rendering(model, {"content": []}, core_form=True)
            from_wire = mcp_rendering.resolve_rendering(wire, {"content": []}, core_form=True)
            assert from_model.hints == from_wire.hints
            assert from_model.problems == from_wire.problems
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)


@given(st.one_of(st.booleans(), st.sampled_from(["true", "True", "yes", "1", "on", "false", 1, 0, 1.0, None])))
def test_is_error_reads_alike_from_the_wire_dict_and_the_patched_model(flag: Any) -> None:
    """`isError: "true"` is no boolean: the wire reader does not read it as an error, and the patched model, which the
    SDK's lax boolean would have set to True, reads it alike, so a verbatim tool's result reads one way."""
    from mcp_rendering.host import present

    tool = {"name": "t", "inputSchema": {"type": "object"}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
    wire: dict[str, Any] = {
        "content": [{"type": "text", "text": "ok"}],
        "_meta": {EXTENSION_ID: {"mode": "summarizable", "complete": True}},
        "isError": flag,
    }
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        with mcp_rendering.installed():
            model = mcp_types.CallToolResult.model_validate(wire, by_name=False)
            through_json = mcp_types.CallToolResult.model_validate_json(json.dumps(wire))
            readings = [present(tool, form) for form in (wire, model, through_json)]
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)
    expected = "verbatim" if flag is True else "summarizable"
    assert [reading.mode for reading in readings] == [expected] * 3
    assert readings[0].model_result == readings[1].model_result == readings[2].model_result
    assert model.is_error is (flag is True)

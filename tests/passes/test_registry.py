"""The pass registry and MLIR-style pipeline strings."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from compiler.passes import (
    CATEGORIES,
    Pass,
    PassError,
    all_passes,
    default_pipeline,
    get,
    parse_pipeline,
    register,
    registry,
)
from compiler.passes.hardware_dependent.select_schedule.select_schedule import SelectSchedule
from compiler.passes.hardware_independent.canonicalize.canonicalize import Canonicalize

DEFAULT_PASSES = {
    "ssa.canonicalize": "hardware-independent",
    "ssa.analyze_effects": "hardware-independent",
    "ssa.select_schedule": "hardware-dependent",
    "ssa.decompose_linalg": "hardware-independent",
    "ssa.lower_memory_scopes": "hardware-dependent",
    "ssa.legalize_argument_dtypes": "hardware-dependent",
    "ssa.lower_backend_intrinsics": "backend-specific",
}


@pytest.fixture
def scratch_registry(monkeypatch):
    """Passes registered by a test disappear after it."""
    monkeypatch.setattr(registry, "_PASSES", dict(registry._PASSES))


def test_every_pass_module_registers_its_pass_with_a_category_and_description():
    names = {cls.name: cls.category for cls in all_passes()}
    assert DEFAULT_PASSES.items() <= names.items()
    for cls in all_passes():
        assert cls.category in CATEGORIES and cls.description and "\n" not in cls.description
    backend_specific = all_passes("backend-specific")
    assert "ssa.lower_backend_intrinsics" in [cls.name for cls in backend_specific]
    assert all(cls.category == "backend-specific" for cls in backend_specific)
    with pytest.raises(PassError, match="unknown category 'fast'; categories: hardware-"):
        all_passes("fast")


def test_pipeline_string_gives_typed_options():
    passes = parse_pipeline(
        'ssa.canonicalize, ssa.select_schedule{BLOCK_SIZE_0=64 cap=32,rule="smallest"}'
    )
    assert passes == [
        Canonicalize(),
        SelectSchedule(rule="smallest", cap=32, values=(("BLOCK_SIZE_0", 64),)),
    ]
    assert [str(p) for p in passes] == [
        "ssa.canonicalize",
        "ssa.select_schedule{rule=smallest cap=32 BLOCK_SIZE_0=64}",
    ]
    assert parse_pipeline(",".join(map(str, passes))) == passes
    assert parse_pipeline("  ") == []


def test_default_pipeline_names_the_backend_pass():
    assert default_pipeline("triton") == (
        "ssa.specialize_arguments,ssa.canonicalize,ssa.analyze_effects,ssa.select_schedule,"
        "ssa.triton.optimize_schedule,ssa.decompose_linalg,ssa.lower_memory_scopes,"
        "ssa.emulate_narrow_floats,ssa.legalize_argument_dtypes,ssa.order_memory,"
        "ssa.lower_backend_intrinsics,"
        "ssa.lower_tiles_to_loops,ssa.lower_parallel,ssa.vectorize_accesses,ssa.wrap_grid,"
        "ssa.normalize_loops,"
        "ssa.canonicalize,ssa.wrap_64_bit_arithmetic,ssa.pipeline_loops"
    )
    with pytest.raises(PassError, match="lower-case identifier"):
        default_pipeline("Triton GPU")


@pytest.mark.parametrize(
    ("pipeline", "message"),
    [
        ("ssa.nope", "unknown pass 'ssa.nope'; registered passes: ssa.analyze_effects,"),
        ("ssa.canonicalize{bogus=1}", "unknown option 'bogus'; valid options: max_iterations"),
        ("ssa.analyze_effects{x=1}", "unknown option 'x'; valid options: none"),
        ("ssa.canonicalize{max_iterations=many}", "max_iterations expects int, got 'many'"),
        ("ssa.select_schedule{BLOCK_SIZE_0=big}", "BLOCK_SIZE_0 expects int, got 'big'"),
        ("ssa.canonicalize{max_iterations=1 max_iterations=2}", "given twice"),
        ("ssa.canonicalize{max_iterations}", "cannot read options 'max_iterations'"),
        ("ssa.canonicalize,,ssa.canonicalize", "empty item"),
        ("ssa.canonicalize{", "unclosed { in pipeline"),
        ('ssa.test{a="x}', "unclosed quote"),
        ("ssa.canonicalize}", "unbalanced braces"),
        ("ssa.canonicalize{a={b=1}}", "unbalanced braces"),
        ("ssa.canonicalize{max_iterations=1} x", "cannot read pipeline item"),
        ("ssa.nobackend.optimize_schedule", "unknown pass 'ssa.nobackend.optimize_schedule'"),
    ],
)
def test_pipeline_errors_name_what_is_valid(pipeline, message):
    with pytest.raises(PassError, match=message.replace("{", r"\{").replace("(", r"\(")):
        parse_pipeline(pipeline)


def test_bool_and_float_options_are_read_by_field_type(scratch_registry):
    @register
    @dataclass(frozen=True)
    class Tune(Pass):
        name = "ssa.test.tune"
        category = "backend-specific"
        description = "options of every type"

        fast: bool = False
        ratio: float = 0.5
        label: str = "x"

    (tune,) = parse_pipeline("ssa.test.tune{fast=true ratio=2.5 label=wide}")
    assert tune == Tune(fast=True, ratio=2.5, label="wide")
    assert tune.options() == {"fast": True, "ratio": 2.5, "label": "wide"}
    spaced = Tune(label='a "b", {c}')
    assert str(spaced) == r'ssa.test.tune{label="a \"b\", {c}"}'
    assert parse_pipeline(str(spaced)) == [spaced]
    with pytest.raises(PassError, match="fast expects true or false, got 'yes'"):
        parse_pipeline("ssa.test.tune{fast=yes}")


def test_backend_passes_register_from_their_package_on_first_use(scratch_registry, monkeypatch):
    imported = []

    def import_module(module):
        imported.append(module)

        @register
        @dataclass(frozen=True)
        class Optimize(Pass):
            name = "ssa.fakebackend.optimize_schedule"
            category = "backend-specific"
            description = "stand-in for a backend's schedule pass"

            num_warps: int = 4

    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda module: object())
    monkeypatch.setattr(registry.importlib, "import_module", import_module)
    (optimize,) = parse_pipeline("ssa.fakebackend.optimize_schedule{num_warps=8}")
    assert imported == ["compiler.backends.fakebackend"]
    assert optimize.num_warps == 8 and get("ssa.fakebackend.optimize_schedule") is type(optimize)


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"name": "canon", "category": "hardware-independent"}, "name must be a string 'ssa."),
        ({"name": "ssa.t", "category": "fast"}, "category 'fast' is not one of"),
        ({"name": "ssa.t", "category": "backend-specific", "description": ""}, "one-line"),
        ({"name": "ssa.canonicalize", "category": "backend-specific"}, "registered twice"),
    ],
)
def test_register_rejects_malformed_passes(scratch_registry, attrs, message):
    cls = dataclass(frozen=True)(type("Bad", (Pass,), {"description": "d", **attrs}))
    with pytest.raises(TypeError, match=message):
        register(cls)


def test_register_wants_frozen_dataclasses_with_simple_options(scratch_registry):
    attrs = {"name": "ssa.t", "category": "backend-specific", "description": "d"}
    with pytest.raises(TypeError, match="frozen"):
        register(dataclass(type("Mutable", (Pass,), dict(attrs))))
    listed = dataclass(frozen=True)(
        type("Listed", (Pass,), {**attrs, "__annotations__": {"sizes": "tuple"}, "sizes": ()})
    )
    with pytest.raises(TypeError, match="option sizes must be int, float, bool or str"):
        register(listed)

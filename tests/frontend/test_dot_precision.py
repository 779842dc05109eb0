"""Which products a dot permits, by Triton's rule: f32 dots permit TF32 unless the program asks
for exact ones; the dot records it, Triton spells it, and targets with tensor cores take it."""

import pytest

import compiler.dsl.language as ntl
from compiler.backends import lower_unified_ssa_artifact
from compiler.dsl import Tensor
from compiler.frontend.build import ArgSpec, build_kernel
from compiler.passes.helpers.array_dot import operand_kind

KEYWORDS = {
    "default": ({}, "tf32"),
    "tf32": ({"input_precision": "tf32"}, "tf32"),
    "ieee": ({"input_precision": "ieee"}, "ieee"),
    "tf32x3": ({"input_precision": "tf32x3"}, "ieee"),
    "allow_tf32": ({"allow_tf32": True}, "tf32"),
    "no_tf32": ({"allow_tf32": False}, "ieee"),
    "precision_over_allow": ({"input_precision": "ieee", "allow_tf32": True}, "ieee"),
}


def build(dtype: str, **keywords):
    def application(x, y, out):
        out = ntl.dot(x, y, **keywords)  # noqa: F841

    def arrangement(x, y, out):
        return x.tile((16, 16)), y.tile((16, 16)), out.tile((16, 16))

    tensors = [Tensor(2).with_name(name) for name in ("x", "y", "out")]
    specs = [ArgSpec("tensor", dtype), ArgSpec("tensor", dtype), ArgSpec("tensor", "f32")]
    return build_kernel("k", application, arrangement(*tensors), specs, {})


def the_dot(kernel):
    return next(op for op in kernel.walk() if op.name == "linalg.dot")


@pytest.mark.parametrize("case", sorted(KEYWORDS))
def test_f32_dots_permit_tf32_as_triton_does(case):
    keywords, expected = KEYWORDS[case]
    dot = the_dot(build("f32", **keywords))
    assert dot.attrs.get("precision", "ieee") == expected
    assert operand_kind(dot) == ("tf32" if expected == "tf32" else "f32")


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_other_dots_are_exact(dtype):
    dot = the_dot(build(dtype))
    assert "precision" not in dot.attrs and operand_kind(dot) == dtype


@pytest.mark.parametrize(("case", "spelled"), [("default", "tf32"), ("ieee", "ieee")])
def test_triton_spells_the_permitted_products(case, spelled):
    artifact = lower_unified_ssa_artifact(build("f32", **KEYWORDS[case][0]), "triton")
    assert f'input_precision="{spelled}"' in artifact.source


@pytest.mark.parametrize("backend", ["cuda", "tilelang"])
def test_only_dots_permitting_tf32_reach_f32_tensor_cores(backend):
    """On CUDA, a dot of f32 tiles is a block-wide tensor-core dot only where it permits TF32."""
    for case, block_wide in (("default", True), ("ieee", False)):
        kernel = build("f32", **KEYWORDS[case][0])
        artifact = lower_unified_ssa_artifact(kernel, backend, device="cuda")
        assert ("mem.dot" in artifact.ssa) == block_wide, case

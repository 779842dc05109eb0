"""Code we did not write, ahead of time: ntops' kernels (made by ntops' own `premake`, as
`make bench` makes them) built into libraries for the CPU on each backend with a CPU form, called
through the C launch function, give what the same backend's Python launch gives, bit for bit, on
the same inputs, every tensor the kernel writes poisoned first. Skipped, with the reason, where
the ntops corpus is not next to the project."""

import pytest
import torch

import compiler.dsl
from compiler.compat.corpus import default_corpus
from compiler.compat.library_kernels import NTOPS_KERNELS, load_kernels
from compiler.runtime import aot

CPU_FORMS = ("cuda", "tilelang", "tvm")


@pytest.fixture(scope="module")
def kernels():
    corpus = default_corpus("ntops-*.tar.gz")
    if corpus is None:
        pytest.skip("no ntops-*.tar.gz in ../shared/corpora: ntops' kernels cannot be built")
    return load_kernels(corpus, compiler.dsl)


@pytest.mark.parametrize("kernel", NTOPS_KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("backend", CPU_FORMS)
def test_ntops_kernel_through_its_library_equals_its_python_launch(
    kernels, kernel, backend, tmp_path
):
    arrangement, application, tensors = kernel.program(kernels)
    handle = compiler.dsl.make(arrangement, application, tensors, backend=backend)
    handle.kernel_name = kernel.name.replace(".", "_")
    expected = kernel.make_args()
    handle.compile(*expected)
    written = {name for name, _ in handle.last.written_tiles}
    for name, value in zip(handle.names, expected, strict=True):
        if name in written:
            value.fill_(float("nan"))
    got = [v.clone() if isinstance(v, torch.Tensor) else v for v in expected]
    handle(*expected)
    aot.write(handle, "cpu", tmp_path, like=(got, {}))
    aot.load(tmp_path, handle.kernel_name)(*got)
    for name, want, mine in zip(handle.names, expected, got, strict=True):
        if name in written:
            assert not mine.isnan().all(), f"{name} was not written"
            torch.testing.assert_close(mine, want, rtol=0, atol=0, equal_nan=True)

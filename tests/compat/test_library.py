"""A corpus library's modules imported outside its tests, under either library (`library.py`), and
the ntops kernels `make bench` compiles (`library_kernels.py`)."""

import sys
from pathlib import Path

import ninetoothed
import pytest

import compiler.dsl
from compiler.compat.corpus import default_corpus, prepare
from compiler.compat.library import import_library_module
from compiler.compat.library_kernels import NTOPS_KERNELS, load_kernels
from compiler.frontend.handle import KernelHandle

LIBRARY = Path(__file__).resolve().parents[1] / "fixtures" / "compat_library"


@pytest.mark.parametrize("library", [compiler.dsl, ninetoothed], ids=["ours", "ninetoothed"])
def test_a_module_keeps_the_library_it_was_imported_under(library):
    before = sys.modules.get("ninetoothed")
    ops = import_library_module(prepare(LIBRARY), "tinylib.ops", library)
    assert ops.ninetoothed is library and ops.ntl is library.language
    assert sys.modules.get("ninetoothed") is before
    assert not any(name == "tinylib" or name.startswith("tinylib.") for name in sys.modules)


def test_each_import_is_a_fresh_copy():
    corpus = prepare(LIBRARY)
    first = import_library_module(corpus, "tinylib.ops", compiler.dsl)
    assert import_library_module(corpus, "tinylib.ops", compiler.dsl) is not first


@pytest.mark.skipif(default_corpus() is None, reason="no ntops corpus in ../shared/corpora")
def test_every_ntops_kernel_compiles_for_triton():
    kernels = load_kernels(default_corpus(), compiler.dsl)
    names = [kernel.name for kernel in NTOPS_KERNELS]
    assert len(names) == len(set(names)) and all(n.startswith("ntops.") for n in names)
    for kernel in NTOPS_KERNELS:
        handle = compiler.dsl.make(*kernel.program(kernels), backend="triton", device="cpu")
        assert isinstance(handle, KernelHandle)
        assert handle.compile(*kernel.make_args()).source, kernel.name

"""``load_program`` binds ``ninetoothed`` to the given module, for a program and its siblings."""

import sys
import types

from compiler.suite import SUITE, load_program


def _stub_library():
    """A stand-in for NineToothed that records what the programs build."""

    class Tensor:
        def __init__(self, *args, **kwargs):
            self.args, self.kwargs = args, kwargs

    library = types.ModuleType("stub_ninetoothed")
    library.Tensor = Tensor
    library.Symbol = lambda *args, **kwargs: ("symbol", args, kwargs)
    library.block_size = lambda *args, **kwargs: ("block_size", args, kwargs)
    library.language = types.ModuleType("stub_ninetoothed.language")
    return library


def test_program_is_bound_to_the_given_library():
    library, before = _stub_library(), dict(sys.modules)

    program = load_program(SUITE["vector_add"].path, library)

    assert all(isinstance(tensor, library.Tensor) for tensor in program.tensors)
    assert program.BLOCK_SIZE[0] == "block_size"
    assert sys.modules.get("ninetoothed") is before.get("ninetoothed")
    assert sys.modules.get("ninetoothed.language") is before.get("ninetoothed.language")


def test_sibling_program_is_imported_afresh_under_the_same_binding():
    first, second = _stub_library(), _stub_library()

    addmm = load_program(SUITE["addmm"].path, first)
    conv2d = load_program(SUITE["conv2d"].path, second)

    assert addmm.ntl is first.language
    assert isinstance(addmm.mm.tensors[0], first.Tensor)
    assert isinstance(conv2d.mm.tensors[0], second.Tensor)
    assert not any(name.startswith("compiler.suite.programs") for name in sys.modules)

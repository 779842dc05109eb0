"""The constant evaluator: the values that names, joins, formats, helpers and decoders build, and
the bounds that keep it from running away (cycles, sizes, decompression bombs, depth)."""

from __future__ import annotations

import base64
import bz2
import gzip
import lzma
import time
import zlib

import libcst as cst
import pytest

from audits.evaluation import UNKNOWN, EvaluationState, Evaluator, Opaque, ProjectBindings
from audits.evaluation.values import MAX_LENGTH


def evaluate(source: str, *others: tuple[str, str]):
    """The value of `RESULT` in `source`, with `others` as (path, source) modules beside it."""
    project = ProjectBindings()
    for path, text in others:
        project.add(path, cst.parse_module(text))
    module = cst.parse_module(source)
    bindings = project.add("example.py", module)
    (result,) = [s.body[0] for s in module.body if _assigns_result(s)]
    return Evaluator(EvaluationState(project), bindings, None).value(result.value)


def _assigns_result(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Assign)
        and statement.body[0].targets[0].target.value == "RESULT"
    )


@pytest.mark.parametrize(
    "source",
    [
        'RESULT = "mat" + "mul"',
        'RESULT = "%s%s" % ("mat", "mul")',
        'RESULT = "%(a)s%(b)s" % {"a": "mat", "b": "mul"}',
        'RESULT = "{}{}".format("mat", "mul")',
        'RESULT = "{a}{b}".format(a="mat", b="mul")',
        "RESULT = f\"{'mat'}{'MUL'.lower()}\"",
        'A = "mat"\nRESULT = f"{A}mul"',
        'RESULT = "".join(["m", "a", "t", "m", "u", "l"])',
        'RESULT = "_".join(("mat", "mul")).replace("_", "")',
        'RESULT = "lumtam"[::-1]',
        'RESULT = "".join(reversed("lumtam"))',
        'RESULT = "xxmatmulxx"[2:-2]',
        'RESULT = "  MATMUL ".strip().lower()',
        'RESULT = "MatMul".casefold()',
        'RESULT = "".join(chr(c) for c in (109, 97, 116, 109, 117, 108))',
        'RESULT = "".join(map(chr, [109, 97, 116, 109, 117, 108]))',
        "RESULT = bytes([109, 97, 116, 109, 117, 108]).decode()",
        'RESULT = "zngzhl".translate(str.maketrans("zngh", "matu"))',
        'PARTS = ("mat", "mul")\nRESULT = PARTS[0] + PARTS[1]',
        'TABLE = {"k": "matmul"}\nRESULT = TABLE["k"]',
        'TABLE = {"k": "matmul"}\nRESULT = TABLE.get("k")',
        'class Kinds:\n    A = "mat"\n    B = A + "mul"\nRESULT = Kinds.B',
        'def kind():\n    """The kind."""\n    return "mat" + "mul"\nRESULT = kind()',
        'def kind(a, b="mul"):\n    return a + b\nRESULT = kind("mat")',
        'kind = lambda: "matmul"\nRESULT = kind()',
        'RESULT = "matmul" if True else "add"',
        'import base64\nRESULT = base64.b64decode("bWF0bXVs").decode()',
        'from base64 import b64decode\nRESULT = b64decode(b"bWF0bXVs").decode("ascii")',
        'RESULT = bytes.fromhex("6d61746d756c").decode()',
        'import binascii\nRESULT = binascii.unhexlify("6d61746d756c").decode()',
        'import codecs\nRESULT = codecs.decode("zngzhy", "rot13")',
        'import codecs\nRESULT = codecs.decode(b"bWF0bXVs\\n", "base64").decode()',
        'import base64\nRESULT = base64.b32decode("NVQXI3LVNQ======").decode()',
        f"import zlib, base64\nRESULT = zlib.decompress(base64.b64decode("
        f"{base64.b64encode(zlib.compress(b'matmul')).decode()!r})).decode()",
        f"import gzip\nRESULT = gzip.decompress({gzip.compress(b'matmul')!r}).decode()",
        f"import lzma\nRESULT = lzma.decompress({lzma.compress(b'matmul')!r}).decode()",
        f"import bz2\nRESULT = bz2.decompress({bz2.compress(b'matmul')!r}).decode()",
        "import base64\ndef unpack(s):\n    return base64.b64decode(s).decode()\n"
        'RESULT = unpack("bWF0bXVs")',
    ],
)
def test_constant_pieces_evaluate_to_their_value(source: str):
    assert evaluate(source) == "matmul"


def test_names_imported_from_another_module_resolve():
    kinds = ("kinds.py", 'PREFIX = "mat"\nKIND = PREFIX + "mul"\n')
    assert evaluate("from kinds import KIND\nRESULT = KIND", kinds) == "matmul"
    assert evaluate("import kinds\nRESULT = kinds.KIND.upper()", kinds) == "MATMUL"


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    return x\nRESULT = f(y)",  # an argument known only at run time
        'A = "mat"\nA = "bat"\nRESULT = A',  # bound twice: not one value
        'A = "x"\nA += "y"\nRESULT = A',
        "RESULT = unknown_call()",
        'RESULT = "{0.__class__}".format("x")',  # attribute access in a format field
        'RESULT = "{}".format(object())',
    ],
)
def test_values_computed_at_run_time_are_unknown(source: str):
    assert evaluate(source) is UNKNOWN


@pytest.mark.parametrize(
    "source",
    [
        'A = B + "x"\nB = A + "y"\nRESULT = A',  # names that refer to each other
        "def f():\n    return f()\nRESULT = f()",  # a helper that calls itself
        'def f(n):\n    return g(n) + "x"\ndef g(n):\n    return f(n)\nRESULT = f(1)',
        'RESULT = "x" * 10**9',  # size caps: nothing larger than MAX_LENGTH is built
        'RESULT = "{:>999999999}".format("a")',
        'RESULT = f"{1:>999999999}"',
        'RESULT = "%999999999s" % "a"',
        'RESULT = "a".center(10**9)',
        'RESULT = ("ab" * 1000).replace("a", "b" * 100000)',
        "RESULT = 2 ** 10**9",
        "RESULT = 1 << 10**9",
        'RESULT = "".join(chr(c % 100 + 32) for c in range(10**9))',
        "".join(f"def f{i}(a):\n    return f{i + 1}(a) + f{i + 1}(a)\n" for i in range(40))
        + "def f40(a):\n    return unknown\nRESULT = f0('x')",  # 2**40 calls, were it not cut
    ],
)
def test_evaluation_is_bounded(source: str):
    started = time.perf_counter()
    assert evaluate(source) is UNKNOWN
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("module", [zlib, gzip, lzma, bz2], ids=lambda module: module.__name__)
def test_a_decompression_bomb_stops_at_the_cap(module):
    compress, module = module.compress, module.__name__
    bomb = compress(bytes(MAX_LENGTH + 1))
    value = evaluate(f"import {module}\nRESULT = {module}.decompress({bomb!r})")
    assert isinstance(value, Opaque) and "inflates past" in value.why


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ('import base64\nRESULT = base64.b64decode("!not base64!")', "does not decode"),
        ('import zlib\nRESULT = zlib.decompress(b"not zlib data")', "does not decompress"),
        ("RESULT = bytes.fromhex('zz')", "does not decode"),
        ("RESULT = unscramble('Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi')", "passed to unscramble()"),
    ],
)
def test_data_that_does_not_decode_is_opaque(source: str, why: str):
    value = evaluate(source)
    assert isinstance(value, Opaque) and why in value.why


def test_a_long_chain_of_pieces_evaluates_without_recursion():
    pieces = " + ".join(f'"{i % 10}"' for i in range(5000))
    assert evaluate(f"RESULT = {pieces}") == "".join(str(i % 10) for i in range(5000))

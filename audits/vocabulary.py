"""Operator vocabulary and whole-word matching of identifiers and name-like strings.

An identifier is split into words at underscores, other punctuation, CamelCase humps and digits
(`FlashAttentionOpIR` -> flash, attention, op, ir; `lower_mm_v2` -> lower, mm, v, 2). A vocabulary
entry matches a run of adjacent words joined together, so `MatMul`, `LayerNorm` and `Im2Col` match
`matmul`, `layer_norm` and `im2col`, while `address`, `dotted`, `attributes` and `summary` do not
(no substring matching). One lowercase word that is wholly made of vocabulary and glue words
(`lowermatmul`, `flashattn`) matches too, and look-alike letters (Cyrillic `а` for `a`) are folded.

What is not in the default vocabulary, and why:

- the generic primitives that the DSL (`ntl.exp`, `ntl.sigmoid`, ...) and the IR (`math.exp`,
  `linalg.dot`, `reduce.sum`, ...) are built from: exp, exp2, log, sqrt, rsqrt, abs, sin, cos, tanh,
  sigmoid, dot, sum, max, min, where, argmax, cumsum. The frontend must name them to map them to
  generic ops; an operator is what sits above them (softmax = max, sub, exp, sum, div).
- `reduce` and `reduction`: a class of generic ops (`reduce.sum`, `reduce.max`), not an
  operator; compilers also say "range reduction" (tinygrad's transcendental code) and "reduction
  blocks" (TileLang's scheduler). A pass that lowers every reduction is the generic path.
- `pool`, `norm`, `linear`, `embedding`: everyday words in compilers and libraries (memory pool,
  vector norm, linear index, graph embedding); the operator forms are `max_pool`, `avg_pool`,
  `pooling`, `layer_norm`, `rms_norm`, ...
- `matmult`: Python's `ast.MatMult` is the `@` syntax, which a frontend maps to `linalg.dot`.

Entries are written as code spells the operator (`layer_norm`); matching ignores the underscore,
and the pattern check (audits/patterns.py) tries each entry in its snake, compact and CamelCase
spellings. A few everyday phrases contain an entry and mean something else (`calling_conv`, a
function's calling convention): their words never match. Entries shorter than `whole_below`
letters (the backend `c`) match only a whole string (`target.kind.name == "c"`), never an
identifier (`C_coords`, `def C(self)`, `pragma_import_c`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

DEFAULT_OPERATOR_WORDS: tuple[str, ...] = (
    "matmul", "mmul", "mm", "bmm", "gemm", "sgemm", "hgemm", "dgemm", "gemv", "addmm",
    "baddbmm", "einsum",
    "attention", "attn", "sdpa", "scaled_dot_product", "mha", "mqa", "gqa", "flash",
    "flash_attention", "softmax", "log_softmax",
    "layer_norm", "rms_norm", "batch_norm", "group_norm", "instance_norm",
    "conv", "conv1d", "conv2d", "conv3d", "convolution", "deconv",
    "max_pool", "avg_pool", "pooling", "im2col",
    "rotary", "rope",
    "gelu", "silu", "swiglu", "geglu", "relu", "softplus",
    "dropout", "topk", "cross_entropy",
)  # fmt: skip

GENERIC_PRIMITIVES: tuple[str, ...] = (
    "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs", "sin", "cos", "tanh", "sigmoid",
    "dot", "sum", "max", "min", "where", "argmax", "argmin", "cumsum", "reduce",
)  # fmt: skip

DEFAULT_BACKEND_WORDS: tuple[str, ...] = ("triton", "cuda", "tilelang", "tvm")

# Word sequences that hold a vocabulary entry but name something else.
EVERYDAY_PHRASES: tuple[tuple[str, ...], ...] = (("calling", "conv"),)

# Words that a disguised compound may glue to an operator name (`lowermatmul`, `fusedattn`).
COMPOUND_GLUE: tuple[str, ...] = (
    "lower", "lowering", "emit", "emitter", "gen", "codegen", "generate", "make", "build", "kernel",
    "kernels", "op", "ops", "impl", "fused", "fuse", "fusion", "fast", "tiled", "naive", "custom",
    "fwd", "bwd", "forward", "backward", "template", "tpl", "my", "special", "batched", "get",
    "run", "handle", "apply", "compute", "launch", "rewrite", "pattern", "inner", "online", "block",
)  # fmt: skip

_CONFUSABLES = str.maketrans(
    "аеорсхуіјѕкмтнвАВЕКМНОРСТХαορτνκιΑΒΕΜΝΟΡΤΧ",
    "aeopcxyijskmthbABEKMHOPCTXaoptvkiABEMNOPTX",
)
_HUMPS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SEPARATORS = re.compile(r"[^0-9A-Za-z]+")


def fold(text: str) -> str:
    """Fold full-width and look-alike letters to ASCII so disguised names compare as written."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)


def split_words(identifier: str) -> list[str]:
    """Lowercase words of a snake_case, CamelCase or dotted name; digits are words of their own."""
    words = []
    for chunk in _SEPARATORS.split(fold(identifier)):
        words.extend(hump.lower() for hump in _HUMPS.findall(chunk))
    return words


def normalize_entry(entry: str) -> str:
    return "".join(split_words(entry))


class Vocabulary:
    """A set of words to find in names; `find` returns the entry that matched, or None."""

    def __init__(
        self, words: Iterable[str], glue: Iterable[str] = COMPOUND_GLUE, whole_below: int = 0
    ):
        self._spelling = {normalize_entry(word): word for word in words if normalize_entry(word)}
        self.entries = frozenset(self._spelling)
        self.words = tuple(sorted(self._spelling.values()))  # as configured: `layer_norm`, `rope`
        self._glue = frozenset(normalize_entry(word) for word in glue)
        self._pieces = self.entries | self._glue
        self._longest_piece = max((len(piece) for piece in self._pieces), default=0)
        self._whole_below = whole_below

    def without(self, words: Iterable[str]) -> Vocabulary:
        removed = {normalize_entry(word) for word in words}
        kept = [word for key, word in self._spelling.items() if key not in removed]
        return Vocabulary(kept, self._glue, self._whole_below)

    def find(self, name: str) -> str | None:
        """The entry that a string value (an op name, a key, a target name) contains."""
        return self.find_in_words(split_words(name))

    def find_identifier(self, name: str) -> str | None:
        """The entry that an identifier contains; short entries never match one (`C`, `c0`)."""
        return self.find_in_words(split_words(name), whole_short=False)

    def find_in_words(self, words: list[str], whole_short: bool = True) -> str | None:
        whole = "".join(words)
        if len(whole) < self._whole_below:
            return self._spelling.get(whole) if whole_short else None
        words = _masked(words)
        for start in range(len(words)):
            joined = ""
            for word in words[start : start + 4]:
                joined += word
                entry = self._entry(joined)
                if entry and len(entry) >= self._whole_below:
                    return self._spelling[entry]
        for word in words:
            entry = self._compound(word)
            if entry and len(entry) >= self._whole_below:
                return self._spelling[entry]
        return None

    def _entry(self, token: str) -> str | None:
        for candidate in (token, token[:-1] if token.endswith("s") else ""):
            if candidate in self.entries:
                return candidate
        if token.endswith("es") and token[:-2] in self.entries:
            return token[:-2]
        return None

    def _compound(self, word: str) -> str | None:
        """An entry inside one word that splits wholly into vocabulary and glue pieces."""
        if len(word) < 5 or not word.isalpha():
            return None
        # found[i]: the entry used on some split of word[:i] into pieces ("" if only glue so far)
        found: list[str | None] = [None] * (len(word) + 1)
        found[0] = ""
        for end in range(2, len(word) + 1):
            for start in range(max(0, end - self._longest_piece), end - 1):
                piece = word[start:end]
                if found[start] is None or piece not in self._pieces:
                    continue
                found[end] = found[start] or (piece if piece in self.entries else "")
                if found[end]:
                    break
        return found[-1] or None


def _masked(words: list[str]) -> list[str]:
    """The words with every everyday phrase blanked out (a blank joins no entry)."""
    masked = list(words)
    for phrase in EVERYDAY_PHRASES:
        for start in range(len(words) - len(phrase) + 1):
            if tuple(words[start : start + len(phrase)]) == phrase:
                masked[start : start + len(phrase)] = [" "] * len(phrase)
    return masked

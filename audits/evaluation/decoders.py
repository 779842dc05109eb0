"""Decoding of text hidden in literals (base64, hex, compression, codecs), with bounded output.

Each decoder takes evaluated values and returns the decoded value, an Opaque marker when the
input does not decode or inflates past MAX_LENGTH (a decompression bomb stops there), or UNKNOWN
when the arguments are not constants the audit understands.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import codecs
import lzma
import zlib

from audits.evaluation.values import MAX_LENGTH, UNKNOWN, Opaque

_BASE64_FUNCTIONS = {
    "b64decode", "standard_b64decode", "urlsafe_b64decode", "b32decode", "b32hexdecode",
    "b16decode", "b85decode", "a85decode", "decodebytes",
}  # fmt: skip
_BINASCII_FUNCTIONS = {"a2b_base64", "a2b_hex", "unhexlify", "a2b_qp", "a2b_uu"}
_COMPRESSIONS = ("zlib", "gzip", "lzma", "bz2")
DECODER_FUNCTIONS = frozenset({*_BASE64_FUNCTIONS, *_BINASCII_FUNCTIONS, "fromhex", "decompress"})
DECODING_CALLS = DECODER_FUNCTIONS | {"decode", "encode"}
_ZLIB_WBITS = {"zlib": 15, "gzip": 31, None: 47}  # 47: zlib or gzip, told by the header


def decode_function(name: str, module: str | None, arguments: list, keywords: dict):
    """`base64.b64decode(x)`, `binascii.unhexlify(x)`, `zlib.decompress(x)`, ... on constants."""
    data = arguments[0] if arguments else keywords.get("s", keywords.get("data", UNKNOWN))
    if isinstance(data, Opaque):
        return data
    if not isinstance(data, (str, bytes)):
        return UNKNOWN
    options = [*arguments[1:]]
    keywords = {key: value for key, value in keywords.items() if key not in ("s", "data")}
    if name in _BASE64_FUNCTIONS:
        return _call(getattr(base64, name), data, options, keywords, f"{name}() input")
    if name in _BINASCII_FUNCTIONS:
        return _call(getattr(binascii, name), data, options, {}, f"{name}() input")
    if name == "fromhex":
        return (
            _call(bytes.fromhex, data, [], {}, "hex digits") if isinstance(data, str) else UNKNOWN
        )
    if name == "decompress" and isinstance(data, bytes):
        return decompress(data, module if module in _COMPRESSIONS else None, options)
    return UNKNOWN


def apply_codec(value, codec, errors="strict", decoding: bool = True):
    """`codecs.decode(x, "rot13")`, `x.decode("utf-8")`, `x.encode("base64")`, ..."""
    if isinstance(value, Opaque):
        return value
    if not isinstance(codec, str) or not isinstance(errors, str):
        return UNKNOWN
    name = codec.lower().replace("-", "_")
    if name in ("rot13", "rot_13"):
        return codecs.decode(value, "rot13") if isinstance(value, str) else UNKNOWN
    binary = {"base64": "base64", "base_64": "base64", "base64_codec": "base64", "hex": "hex",
              "hex_codec": "hex", "zlib": "zlib", "zip": "zlib", "zlib_codec": "zlib",
              "bz2": "bz2", "bz2_codec": "bz2"}.get(name)  # fmt: skip
    if binary is not None:
        if not isinstance(value, bytes):
            return UNKNOWN
        if not decoding:
            return _call(codecs.encode, value, [binary], {}, f"{binary} input")
        if binary in ("zlib", "bz2"):
            return decompress(value, binary, [])
        return _call(codecs.decode, value, [binary], {}, f"{binary} input")
    try:
        if not codecs.lookup(name)._is_text_encoding:
            return UNKNOWN
    except LookupError:
        return UNKNOWN
    if decoding and isinstance(value, bytes):
        return _call(bytes.decode, value, [name, errors], {}, f"{name} text")
    if not decoding and isinstance(value, str):
        return _call(str.encode, value, [name, errors], {}, f"{name} text")
    return UNKNOWN


def decompress(data: bytes, kind: str | None, options: list):
    """Inflate at most MAX_LENGTH bytes; `kind` None: tell the format by its header."""
    kind = kind or _sniff(data)
    try:
        if kind == "lzma":
            stream = lzma.LZMADecompressor()
        elif kind == "bz2":
            stream = bz2.BZ2Decompressor()
        else:
            wbits = options[0] if options and isinstance(options[0], int) else _ZLIB_WBITS[kind]
            return _inflate(zlib.decompressobj(wbits), data, kind or "zlib")
        output = stream.decompress(data, max_length=MAX_LENGTH + 1)
    except (lzma.LZMAError, OSError, ValueError, EOFError) as error:
        return Opaque(f"{kind} data that does not decompress ({error})")
    if len(output) > MAX_LENGTH or not stream.eof:
        return Opaque(f"{kind} data that inflates past {MAX_LENGTH} bytes or is cut short")
    return output


def _inflate(stream, data: bytes, kind: str):
    try:
        output = stream.decompress(data, MAX_LENGTH + 1)
    except (zlib.error, ValueError) as error:
        return Opaque(f"{kind} data that does not decompress ({error})")
    if len(output) > MAX_LENGTH or stream.unconsumed_tail or not stream.eof:
        return Opaque(f"{kind} data that inflates past {MAX_LENGTH} bytes or is cut short")
    return output


def _sniff(data: bytes) -> str | None:
    if data.startswith(b"\x1f\x8b"):
        return "gzip"
    if data.startswith(b"BZh"):
        return "bz2"
    if data.startswith((b"\xfd7zXZ\x00", b"\x5d\x00\x00")):
        return "lzma"
    return None


def _call(function, data, options: list, keywords: dict, what: str):
    """Run a pure standard-library decoder on constants; malformed input is opaque data."""
    if not all(isinstance(o, (str, bytes, int, bool)) or o is None for o in options):
        return UNKNOWN
    if not all(isinstance(v, (str, bytes, int, bool)) or v is None for v in keywords.values()):
        return UNKNOWN
    try:
        output = function(data, *options, **keywords)
    except (ValueError, TypeError, binascii.Error, UnicodeError) as error:
        return Opaque(f"{what} that does not decode ({error})")
    return output if len(output) <= MAX_LENGTH else Opaque(f"{what} decoding past the size cap")

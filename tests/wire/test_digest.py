"""SHA-256 and HMAC-SHA-256 digests against the published test vectors (FIPS 180-2, RFC 4231),
and against the standard library on the sizes where the implementation switches."""

from __future__ import annotations

import hashlib
import hmac
import sys

import pytest

from bridge.wire import digest
from bridge.wire.digest import hmac_sha256_hex, sha256_hex

MIB = 1 << 20


def test_sha256_of_the_published_vectors() -> None:
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert sha256_hex(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


@pytest.mark.parametrize(
    ("key", "data", "digest"),
    [
        (  # RFC 4231 test case 1
            b"\x0b" * 20,
            b"Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
        ),
        (  # test case 2
            b"Jefe",
            b"what do ya want for nothing?",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        ),
        (  # test case 6: a key longer than the block is hashed first
            b"\xaa" * 131,
            b"Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        ),
    ],
)
def test_hmac_of_the_rfc_4231_vectors(key: bytes, data: bytes, digest: str) -> None:
    assert hmac_sha256_hex(key, data) == digest


@pytest.mark.parametrize("size", [MIB - 1, MIB, MIB + 1])
def test_both_sides_of_the_size_switch_agree_with_hashlib(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert hmac_sha256_hex(b"k", data) == hmac.new(b"k", data, hashlib.sha256).hexdigest()


@pytest.mark.parametrize("length", [0, 1, 63, 64, 65])
def test_keys_around_the_block_size_agree_with_hmac(length: int) -> None:
    key = bytes(range(1, length + 1))
    assert hmac_sha256_hex(key, b"data") == hmac.new(key, b"data", hashlib.sha256).hexdigest()


def test_this_interpreter_has_the_built_in_sha256() -> None:
    """CPython builds it in (as `_sha256` before 3.12, `_sha2` since): found, it spares a hook
    call OpenSSL's loading."""
    builtin = digest._builtin()
    assert builtin is not None
    assert builtin(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_up_to_a_mebibyte_hashlib_and_hmac_are_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"x" * MIB
    expected = (hashlib.sha256(data).hexdigest(), hmac.new(b"k", data, "sha256").hexdigest())
    monkeypatch.setitem(sys.modules, "hashlib", None)  # importing either now fails
    monkeypatch.setitem(sys.modules, "hmac", None)
    assert (sha256_hex(data), hmac_sha256_hex(b"k", data)) == expected


def test_past_a_mebibyte_the_built_in_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(_data: bytes) -> None:
        raise AssertionError("the built-in SHA-256 hashed a large input")

    data = b"x" * (MIB + 1)
    monkeypatch.setattr(digest, "_BUILTIN", refused)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert hmac_sha256_hex(b"k", data) == hmac.new(b"k", data, hashlib.sha256).hexdigest()


def test_without_the_built_in_every_size_goes_to_hashlib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest, "_BUILTIN", None)
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert hmac_sha256_hex(b"k", b"abc") == hmac.new(b"k", b"abc", hashlib.sha256).hexdigest()

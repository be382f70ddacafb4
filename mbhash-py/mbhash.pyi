"""Type stubs of the mbhash native module (maturin installs them as
mbhash/__init__.pyi with a py.typed marker)."""

import sys
from collections.abc import Iterable
from os import PathLike
from typing import Final, Literal, TypedDict, final

if sys.version_info >= (3, 12):
    from collections.abc import Buffer as _Buffer
else:
    from typing_extensions import Buffer as _Buffer

_Path = str | bytes | PathLike[str] | PathLike[bytes]

__version__: Final[str]
algorithms_available: Final[frozenset[str]]
algorithms_guaranteed: Final[frozenset[str]]

@final
class Hash:
    """A hash object, as hashlib's; made by new() and the constructors."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    @property
    def engine(self) -> str: ...
    def update(self, data: _Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> Hash: ...

def new(
    name: str,
    data: _Buffer = ...,
    *,
    usedforsecurity: object = True,
    string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def md5(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha1(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sm3(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha224(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha256(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha384(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha512(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha512_224(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def sha512_256(
    data: _Buffer = ..., *, usedforsecurity: object = True, string: _Buffer = ...,
    engine: str | None = None,
) -> Hash: ...
def hash_many(
    name: str, buffers: Iterable[_Buffer], *, engine: str | None = None
) -> list[bytes]: ...
def hash_files(
    paths: Iterable[_Path],
    name: str = "sha256",
    jobs: int | None = None,
    *,
    engine: str | None = None,
    timeout: float | None = None,
) -> list[bytes | OSError]: ...
def s3_etag(path: _Path, part_size: int = 8388608, threshold: int = 8388608) -> str: ...
def crc32c(data: _Buffer, value: int = 0, *, engine: str | None = None) -> int: ...
def crc32c_combine(a: int, b: int, len_b: int) -> int: ...
def crc32(data: _Buffer, value: int = 0, /) -> int: ...
def crc64_nvme(data: _Buffer, value: int = 0, /) -> int: ...

@final
class Crc:
    def update(self, data: _Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> Crc: ...
    @property
    def value(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def catalogue_name(self) -> str: ...
    @property
    def width(self) -> int: ...
    @property
    def digest_size(self) -> int: ...

def crc(name: str, data: _Buffer | None = None) -> Crc: ...

class _EngineInfo(TypedDict):
    name: str
    supported: bool

class _FamilyInfo(TypedDict, total=False):
    family: str
    algorithms: list[str]
    env_var: str
    engines: list[_EngineInfo]
    in_use: str | None
    error: str | None
    lanes: int
    cost_ns: dict[str, float]
    auto_runs: list[str]

def engines() -> list[_FamilyInfo]: ...
def set_engine(family: str, name: str | None) -> None: ...
def get_engine(family: str) -> str: ...

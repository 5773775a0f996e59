"""collcConfig_t from Python: the struct the library validates, and what
it or Python refuses."""
import ctypes

import pytest

import collc
from collc import _capi


def test_the_defaults_validate():
    c = collc.Config()
    assert c.timeout_ms is None and c.force_variant is None
    collc.Config(timeout_ms=250, debug_level="info",
                 force_variant="one_shot:flag:staged")
    collc.Config(debug_level=collc.DebugLevel.trace)


def test_the_library_checks_the_struct():
    # The binding's struct is the header's: a wrong magic is caught there.
    c = _capi.Config()
    c.size = ctypes.sizeof(_capi.Config)
    c.magic = 1
    c.version = _capi.VERSION_CODE
    result = collc.library().collcConfigValidate(ctypes.byref(c))
    assert result == 4
    assert b"magic" in collc.library().collcGetLastError()


def test_a_bad_timeout_is_refused_by_the_library():
    with pytest.raises(collc.InvalidArgument,
                       match="config->timeoutMs is 0, expected a positive "
                             "number of milliseconds"):
        collc.Config(timeout_ms=0)
    with pytest.raises(collc.InvalidArgument, match="timeoutMs is -5"):
        collc.Config(timeout_ms=-5)


def test_wrong_types_are_refused_before_the_library():
    with pytest.raises(TypeError, match="timeout_ms must be an int"):
        collc.Config(timeout_ms=1.5)
    with pytest.raises(TypeError, match="timeout_ms must be an int"):
        collc.Config(timeout_ms=True)
    with pytest.raises(TypeError, match="debug_level must be a "
                                        "collc.DebugLevel"):
        collc.Config(debug_level="loud")
    with pytest.raises(TypeError, match="force_variant must be a str"):
        collc.Config(force_variant=3)

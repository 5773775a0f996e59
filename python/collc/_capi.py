"""The C API of libcollc (runtime/include/collc/collc.h) through ctypes.

Only declarations live here: the library's discovery and every function's
prototype. collc/__init__.py builds the Python API on top.

The library is found, in order, at $COLLC_LIBRARY (a path to libcollc.so),
next to this package (collc/lib/, where an install may put it), then by the
dynamic loader's search (libcollc.so.0.1, libcollc.so).
"""
import ctypes
import os

# The header this binding is written against (collc.h COLLC_MAJOR, ...):
# collcConfig_t.version carries it, as a C caller's compiled header would.
MAJOR, MINOR, PATCH = 0, 1, 0
VERSION_CODE = MAJOR * 10000 + MINOR * 100 + PATCH

CONFIG_MAGIC = 0xC011C0DE
CONFIG_UNDEF_INT = -(2**31)  # INT_MIN

# collcResult_t
SUCCESS = 0
RESULT_NAMES = {
    0: "collcSuccess",
    1: "collcUnhandledCudaError",
    2: "collcSystemError",
    3: "collcInternalError",
    4: "collcInvalidArgument",
    5: "collcInvalidUsage",
    6: "collcTimeout",
    7: "collcInProgress",
}


class Config(ctypes.Structure):
    """collcConfig_t."""
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("magic", ctypes.c_uint),
        ("version", ctypes.c_uint),
        ("timeoutMs", ctypes.c_int),
        ("debugLevel", ctypes.c_int),
        ("forceVariant", ctypes.c_char_p),
    ]


# collc/device/device_comm.h
DEVICE_API_VERSION = 1
DEVICE_SIGNAL_SLOTS = 64


class DeviceComm(ctypes.Structure):
    """collcDeviceComm: what a kernel of the device API takes by value."""
    _fields_ = [
        ("version", ctypes.c_uint),
        ("rank", ctypes.c_int),
        ("nranks", ctypes.c_int),
        ("slots", ctypes.c_int),
        ("peers", ctypes.c_void_p),
        ("bytes", ctypes.c_ulonglong),
        ("inbox", ctypes.c_void_p),
        ("expected", ctypes.c_void_p),
        ("error", ctypes.c_void_p),
        ("timeoutNs", ctypes.c_ulonglong),
    ]


# collcAllGatherFn_t: int (*)(const void *send, void *recv, size_t bytes,
# void *userData)
ALLGATHER_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_size_t,
                                ctypes.c_void_p)

_vp = ctypes.c_void_p
_sz = ctypes.c_size_t
_int = ctypes.c_int
_szp = ctypes.POINTER(ctypes.c_size_t)

# name: (result type, argument types). Handles (module, comm, window,
# stream) are opaque pointers: c_void_p.
PROTOTYPES = {
    "collcGetErrorString": (ctypes.c_char_p, [_int]),
    "collcGetLastError": (ctypes.c_char_p, []),
    "collcGetVersion": (_int, [ctypes.POINTER(_int)]),
    "collcConfigValidate": (_int, [ctypes.POINTER(Config)]),
    "collcDriverInfo": (_int, [ctypes.POINTER(_int), ctypes.POINTER(_int)]),
    "collcDeviceGetComputeCapability":
        (_int, [_int, ctypes.POINTER(_int), ctypes.POINTER(_int)]),
    "collcModuleLoad": (_int, [ctypes.POINTER(_vp), ctypes.c_char_p]),
    "collcModuleLoadData": (_int, [ctypes.POINTER(_vp), ctypes.c_char_p, _sz]),
    "collcModuleDestroy": (_int, [_vp]),
    "collcCommInitRank": (_int, [ctypes.POINTER(_vp), _vp, _int, _int, _int,
                                 ALLGATHER_FN, _vp, ctypes.POINTER(Config)]),
    "collcCommInitAll": (_int, [ctypes.POINTER(_vp), _vp, _int,
                                ctypes.POINTER(_int), ctypes.POINTER(Config)]),
    "collcCommDestroy": (_int, [_vp]),
    "collcCommAbort": (_int, [_vp]),
    "collcCommGetAsyncError": (_int, [_vp, ctypes.POINTER(_int)]),
    "collcCommCount": (_int, [_vp, ctypes.POINTER(_int)]),
    "collcCommUserRank": (_int, [_vp, ctypes.POINTER(_int)]),
    "collcCommRegister": (_int, [_vp, _vp, _sz, ctypes.POINTER(_vp)]),
    "collcCommDeregister": (_int, [_vp, _vp]),
    "collcCommGetDeviceHandle": (_int, [_vp, _vp,
                                        ctypes.POINTER(DeviceComm)]),
    "collcLaunch": (_int, [_vp, ctypes.c_char_p, _vp, _vp, _sz, _szp, _int,
                           _int, _vp]),
    "collcCommSupports": (_int, [_vp, _int, _int, _int,
                                 ctypes.POINTER(_int)]),
    "collcAllReduce": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vp]),
    "collcAllGather": (_int, [_vp, _vp, _sz, _int, _vp, _vp]),
    "collcReduceScatter": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vp]),
    "collcAllToAll": (_int, [_vp, _vp, _sz, _int, _vp, _vp]),
    "collcBroadcast": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vp]),
    "collcReduce": (_int, [_vp, _vp, _sz, _int, _int, _int, _vp, _vp]),
    "collcScatter": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vp]),
    "collcGather": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vp]),
    "collcAllGatherV": (_int, [_vp, _sz, _vp, _szp, _szp, _int, _vp, _vp]),
    "collcReduceScatterV": (_int, [_vp, _vp, _szp, _int, _int, _vp, _vp]),
    "collcAllToAllV": (_int, [_vp, _szp, _szp, _vp, _szp, _szp, _int, _vp,
                              _vp]),
}


class LibraryNotFound(OSError):
    """libcollc could not be loaded from any of the places searched."""


def _candidates():
    env = os.environ.get("COLLC_LIBRARY")
    if env:
        return [env], True
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    return [os.path.join(here, "libcollc.so"), "libcollc.so.0.1",
            "libcollc.so"], False


def load():
    """The library with every prototype set; LibraryNotFound naming each
    place tried and why."""
    paths, explicit = _candidates()
    errors = []
    for path in paths:
        if os.sep in path and not os.path.exists(path):
            errors.append("%s: no such file" % path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        missing = [name for name in PROTOTYPES if not hasattr(lib, name)]
        if missing:
            errors.append("%s: not libcollc (no %s)" % (path, missing[0]))
            continue
        for name, (res, args) in PROTOTYPES.items():
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
        return lib
    where = "$COLLC_LIBRARY" if explicit else "the package's lib/ and the " \
        "loader's path"
    raise LibraryNotFound("collc: cannot load libcollc from %s: %s" % (
        where, "; ".join(errors)))

"""collc from Python: modules, communicators and every collective of libcollc.

Plain ctypes over the C API (runtime/include/collc/collc.h), no PyTorch
needed. Buffers and streams are integers: device pointers (e.g. a tensor's
data_ptr()) and CUstream / cudaStream_t handles (0: the legacy default
stream). Every failure of the library raises CollcError (a subclass per
collcResult_t) carrying collcGetLastError()'s message; an argument Python
can judge (a negative count, a type that is not a DataType) raises
ValueError or TypeError before the library is called.

    import collc
    module = collc.Module("out/modules/collectives.collcmod")
    comms = collc.Comm.init_all(module, devices=[0, 1])
    for comm, send, recv, stream in zip(comms, sends, recvs, streams):
        # Every rank's call (a collective waits for all of them).
        comm.all_reduce(send, recv, count, collc.DataType.bfloat16, stream=stream)

One process per GPU: Comm.init_rank with an allgather of bytes (e.g.
torch.distributed's all_gather_object, MPI's Allgather).
"""
import ctypes
import enum

from . import _capi

__all__ = [
    "CollcError", "UnhandledCudaError", "SystemError", "InternalError",
    "InvalidArgument", "InvalidUsage", "Timeout", "InProgress",
    "DataType", "RedOp", "DebugLevel", "Collective", "Config", "Module", "Comm", "Window",
    "version", "driver_info", "compute_capability", "error_string",
    "library",
]

_lib = None


def library():
    """The loaded libcollc (ctypes.CDLL), loading it on first use."""
    global _lib
    if _lib is None:
        _lib = _capi.load()
    return _lib


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class CollcError(Exception):
    """A collc call failed: `result` (collcResult_t), `name` (its C name) and
    the library's message (collcGetLastError())."""
    result = None

    def __init__(self, result, message, call=None):
        self.result = result
        self.name = _capi.RESULT_NAMES.get(result, "collcResult(%d)" % result)
        self.message = message
        self.call = call
        # The library's message names the call already.
        super().__init__("%s: %s" % (self.name, message))


class UnhandledCudaError(CollcError):
    """A CUDA driver call failed."""


class SystemError(CollcError):  # noqa: A001 (collcSystemError)
    """A system call or library load failed (e.g. no libcuda.so.1)."""


class InternalError(CollcError):
    """A bug in collc."""


class InvalidArgument(CollcError):
    """An argument is invalid; the message says which and why."""


class InvalidUsage(CollcError):
    """The call is not allowed in the current state."""


class Timeout(CollcError):
    """A bounded wait expired (a peer never signalled)."""


class InProgress(CollcError):
    """A non-blocking operation is still running."""


_ERRORS = {1: UnhandledCudaError, 2: SystemError, 3: InternalError,
           4: InvalidArgument, 5: InvalidUsage, 6: Timeout, 7: InProgress}


def error_string(result):
    """collcGetErrorString(result): a short description, for any code."""
    return library().collcGetErrorString(int(result)).decode()


def _check(result, call):
    if result == _capi.SUCCESS:
        return
    last = library().collcGetLastError()
    message = last.decode() if last else error_string(result)
    raise _ERRORS.get(result, CollcError)(result, message, call)


# ---------------------------------------------------------------------------
# Enumerations
# ---------------------------------------------------------------------------

class DataType(enum.IntEnum):
    """collcDataType_t."""
    bfloat16 = 0
    float16 = 1
    float32 = 2
    float8_e4m3 = 3
    float8_e5m2 = 4

    @property
    def size(self):
        """Bytes per element."""
        return {0: 2, 1: 2, 2: 4, 3: 1, 4: 1}[int(self)]


class RedOp(enum.IntEnum):
    """collcRedOp_t."""
    sum = 0
    max = 1
    min = 2
    avg = 3


class Collective(enum.IntEnum):
    """collcCollective_t: the typed entry points (Comm.supports)."""
    all_reduce = 0
    all_gather = 1
    reduce_scatter = 2
    all_to_all = 3
    broadcast = 4
    reduce = 5
    scatter = 6
    gather = 7
    all_gather_v = 8
    reduce_scatter_v = 9
    all_to_all_v = 10


class DebugLevel(enum.IntEnum):
    """collcDebugLevel_t (COLLC_DEBUG)."""
    none = 0
    warn = 1
    info = 2
    trace = 3


def _enum(kind, value, what):
    if isinstance(value, kind):
        return int(value)
    if isinstance(value, str) and value in kind.__members__:
        return int(kind[value])
    raise TypeError("collc: %s must be a collc.%s (or its name), not %r" % (
        what, kind.__name__, value))


def _count(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("collc: %s must be an int, not %r" % (what, value))
    if value < 0:
        raise ValueError("collc: %s is %d; it must not be negative" % (
            what, value))
    return value


def _ptr(value, what):
    """A device pointer or stream: an int (0: NULL) or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("collc: %s must be an int (a device pointer or "
                        "handle), not %r" % (what, value))
    if value < 0:
        raise ValueError("collc: %s is %d, not an address" % (what, value))
    return value or None


def _sizes(values, what, n=None):
    """A size_t array from a sequence of counts (None: NULL)."""
    if values is None:
        return None
    values = [_count(v, "%s[%d]" % (what, i)) for i, v in enumerate(values)]
    if n is not None and len(values) != n:
        raise ValueError("collc: %s has %d entries, expected %d" % (
            what, len(values), n))
    return (ctypes.c_size_t * len(values))(*values)


# ---------------------------------------------------------------------------
# Library, driver, config
# ---------------------------------------------------------------------------

def version():
    """(major, minor, patch) of the loaded library."""
    code = ctypes.c_int()
    _check(library().collcGetVersion(ctypes.byref(code)), "collcGetVersion")
    v = code.value
    return v // 10000, v // 100 % 100, v % 100


def driver_info():
    """(CUDA driver version, device count); raises where there is no
    driver (SystemError naming libcuda)."""
    drv, count = ctypes.c_int(), ctypes.c_int()
    _check(library().collcDriverInfo(ctypes.byref(drv), ctypes.byref(count)),
           "collcDriverInfo")
    return drv.value, count.value


def compute_capability(device):
    """(major, minor) of CUDA device `device`."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(library().collcDeviceGetComputeCapability(
        _count(device, "device"), ctypes.byref(major), ctypes.byref(minor)),
        "collcDeviceGetComputeCapability")
    return major.value, minor.value


class Config:
    """collcConfig_t: every field optional (None: the runtime's default or
    its environment variable). Checked by collcConfigValidate when built;
    force_variant is checked when a communicator is created."""

    def __init__(self, timeout_ms=None, debug_level=None,
                 force_variant=None):
        c = _capi.Config()
        c.size = ctypes.sizeof(_capi.Config)
        c.magic = _capi.CONFIG_MAGIC
        c.version = _capi.VERSION_CODE
        c.timeoutMs = _capi.CONFIG_UNDEF_INT
        c.debugLevel = _capi.CONFIG_UNDEF_INT
        if timeout_ms is not None:
            if isinstance(timeout_ms, bool) or not isinstance(timeout_ms,
                                                              int):
                raise TypeError("collc: timeout_ms must be an int, not %r" %
                                (timeout_ms,))
            c.timeoutMs = timeout_ms
        if debug_level is not None:
            c.debugLevel = _enum(DebugLevel, debug_level, "debug_level")
        self._force = None
        if force_variant is not None:
            if not isinstance(force_variant, str):
                raise TypeError("collc: force_variant must be a str, not %r"
                                % (force_variant,))
            self._force = force_variant.encode()
            c.forceVariant = self._force
        self._c = c
        _check(library().collcConfigValidate(ctypes.byref(c)),
               "collcConfigValidate")
        self.timeout_ms, self.debug_level = timeout_ms, debug_level
        self.force_variant = force_variant

    def _ref(self):
        return ctypes.byref(self._c)


def _config_ref(config):
    if config is None:
        return None
    if not isinstance(config, Config):
        raise TypeError("collc: config must be a collc.Config, not %r" %
                        (config,))
    return config._ref()


# ---------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------

class Module:
    """A compiled collc module (`collc --emit=module`): Module(path) or
    Module(data=bytes). No GPU is touched until a communicator uses it.
    close() (or `with`) frees it; communicators using it must be closed
    first."""

    def __init__(self, path=None, data=None):
        if (path is None) == (data is None):
            raise TypeError("collc: Module takes a path or data=, not both "
                            "or neither")
        handle = ctypes.c_void_p()
        if path is not None:
            _check(library().collcModuleLoad(ctypes.byref(handle),
                                             str(path).encode()),
                   "collcModuleLoad")
        else:
            data = bytes(data)
            _check(library().collcModuleLoadData(ctypes.byref(handle), data,
                                                 len(data)),
                   "collcModuleLoadData")
        self._handle = handle
        self.path = path

    @property
    def handle(self):
        if self._handle is None:
            raise InvalidUsage(5, "the module was closed", "collc.Module")
        return self._handle

    def close(self):
        if self._handle is not None:
            handle, self._handle = self._handle, None
            _check(library().collcModuleDestroy(handle), "collcModuleDestroy")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------------
# Communicators
# ---------------------------------------------------------------------------

class Window:
    """A registered buffer of one rank (Comm.register)."""

    def __init__(self, comm, handle, ptr, nbytes):
        self.comm, self._handle, self.ptr, self.nbytes = (comm, handle, ptr,
                                                          nbytes)


def _allgather_callback(allgather, nranks, holder):
    """collcAllGatherFn_t over `allgather(bytes) -> bytes`: copies every
    rank's bytes into the runtime's buffer; an exception (or a wrong length)
    returns 1 to the runtime and is kept in holder["error"]."""

    def trampoline(send, recv, nbytes, _user):
        try:
            data = allgather(ctypes.string_at(send, nbytes))
            if len(data) != nbytes * nranks:
                raise ValueError(
                    "collc: allgather returned %d bytes, expected %d (%d "
                    "ranks x %d)" % (len(data), nbytes * nranks, nranks,
                                     nbytes))
            ctypes.memmove(recv, bytes(data), len(data))
            return 0
        except BaseException as e:  # raised after the C call returns
            holder["error"] = e
            return 1

    return _capi.ALLGATHER_FN(trampoline)


class Comm:
    """One rank of a communicator. Build with Comm.init_rank (one process
    per GPU) or Comm.init_all (one process, a rank per listed device)."""

    def __init__(self, handle, module, keep=(), holder=None):
        self._handle = handle
        self.module = module
        # The allgather callback must outlive the communicator: the runtime
        # calls it again to register and deregister buffers.
        self._keep = keep
        self._holder = holder if holder is not None else {}

    def _check_exchange(self, result, call):
        """_check, raising first what the allgather callback raised."""
        error = self._holder.pop("error", None)
        if error is not None and result != _capi.SUCCESS:
            raise error
        _check(result, call)

    @classmethod
    def init_rank(cls, module, nranks, rank, device, allgather, config=None):
        """Rank `rank` of `nranks` on CUDA device `device`. `allgather(b)`
        receives this rank's bytes and returns every rank's, concatenated in
        rank order (each len(b) bytes); every rank calls init_rank
        together."""
        if not callable(allgather):
            raise TypeError("collc: allgather must be callable (bytes -> "
                            "every rank's bytes)")
        nranks = _count(nranks, "nranks")
        rank = _count(rank, "rank")
        holder = {}
        fn = _allgather_callback(allgather, nranks, holder)
        handle = ctypes.c_void_p()
        result = library().collcCommInitRank(
            ctypes.byref(handle), module.handle, nranks, rank,
            _count(device, "device"), fn, None, _config_ref(config))
        comm = cls(handle, module, keep=(fn, allgather), holder=holder)
        comm._check_exchange(result, "collcCommInitRank")
        return comm

    @classmethod
    def init_all(cls, module, devices, config=None):
        """One communicator per entry of `devices` in this process (rank i
        on devices[i]; a device may repeat: ranks sharing a GPU)."""
        devices = [_count(d, "devices[%d]" % i) for i, d in enumerate(devices)]
        if not devices:
            raise ValueError("collc: init_all needs at least one device")
        handles = (ctypes.c_void_p * len(devices))()
        devs = (ctypes.c_int * len(devices))(*devices)
        _check(library().collcCommInitAll(handles, module.handle,
                                          len(devices), devs,
                                          _config_ref(config)),
               "collcCommInitAll")
        return [cls(ctypes.c_void_p(h), module) for h in handles]

    @property
    def handle(self):
        if self._handle is None:
            raise InvalidUsage(5, "the communicator was destroyed or aborted",
                               "collc.Comm")
        return self._handle

    def destroy(self):
        """Frees the communicator after its queued work finished."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            _check(library().collcCommDestroy(handle), "collcCommDestroy")

    def abort(self):
        """Frees it without waiting for peers (after a Timeout)."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            _check(library().collcCommAbort(handle), "collcCommAbort")

    def check_async_error(self):
        """Raises the error a kernel recorded (Timeout naming the
        collective, rank and wait), without synchronizing."""
        result = ctypes.c_int()
        _check(library().collcCommGetAsyncError(self.handle,
                                                ctypes.byref(result)),
               "collcCommGetAsyncError")
        _check(result.value, "collective")

    @property
    def nranks(self):
        n = ctypes.c_int()
        _check(library().collcCommCount(self.handle, ctypes.byref(n)),
               "collcCommCount")
        return n.value

    @property
    def rank(self):
        r = ctypes.c_int()
        _check(library().collcCommUserRank(self.handle, ctypes.byref(r)),
               "collcCommUserRank")
        return r.value

    def register(self, ptr, nbytes):
        """Registers [ptr, ptr + nbytes) of this rank's device memory
        (collective: every rank, in the same order); a Window."""
        window = ctypes.c_void_p()
        self._check_exchange(library().collcCommRegister(
            self.handle, _ptr(ptr, "ptr"), _count(nbytes, "nbytes"),
            ctypes.byref(window)), "collcCommRegister")
        return Window(self, window, ptr, nbytes)

    def deregister(self, window):
        if not isinstance(window, Window) or window.comm is not self:
            raise TypeError("collc: deregister takes a Window of this "
                            "communicator")
        self._check_exchange(
            library().collcCommDeregister(self.handle, window._handle),
            "collcCommDeregister")

    def device_handle(self, window=None):
        """The device API's handle of this rank (collcCommGetDeviceHandle,
        docs/device-api.md): a ctypes collcDeviceComm, for a kernel of
        yours that includes collc/device/api.cuh (compiled with nvcc, or
        NVRTC as CuPy's RawKernel does); pass bytes(handle) as its by-value
        argument. `window`: a Window of this communicator (every rank must
        have registered it), or None for signals only."""
        if window is not None and (not isinstance(window, Window) or
                                   window.comm is not self):
            raise TypeError("collc: device_handle takes a Window of this "
                            "communicator, or None")
        h = _capi.DeviceComm()
        h.version = _capi.DEVICE_API_VERSION
        _check(library().collcCommGetDeviceHandle(
            self.handle, window._handle if window is not None else None,
            ctypes.byref(h)), "collcCommGetDeviceHandle")
        return h

    def supports(self, collective, dtype, op=RedOp.sum):
        """(True, None) when the typed call can run here with `dtype` (and
        `op` for a reduction), else (False, the refusal the call would
        give); collcCommSupports. Sizes and buffers are the call's checks."""
        yes = ctypes.c_int()
        args = (_enum(Collective, collective, "collective"),
                _enum(DataType, dtype, "dtype"), _enum(RedOp, op, "op"))
        _check(library().collcCommSupports(self.handle, *args,
                                           ctypes.byref(yes)),
               "collcCommSupports")
        if yes.value:
            return True, None
        # The refusal without the C entry point's name (it is a reason
        # here, not an error of this call).
        why = library().collcGetLastError().decode()
        prefix = "collcCommSupports : "
        return False, why[len(prefix):] if why.startswith(prefix) else why

    # Collectives (NCCL's conventions: counts in elements; docs/runtime.md).

    def launch(self, name, send, recv, count=0, counts=None,
               dtype=DataType.bfloat16, root=0, stream=0):
        """The module's collective `name` (collcLaunch)."""
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcLaunch(
            self.handle, str(name).encode(), _ptr(send, "send"),
            _ptr(recv, "recv"), _count(count, "count"),
            _sizes(counts, "counts"), _enum(DataType, dtype, "dtype"),
            _count(root, "root"), stream), "collcLaunch")

    def all_reduce(self, send, recv, count, dtype, op=RedOp.sum, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcAllReduce(
            _ptr(send, "send"), _ptr(recv, "recv"), _count(count, "count"),
            _enum(DataType, dtype, "dtype"), _enum(RedOp, op, "op"),
            self.handle, stream), "collcAllReduce")

    def all_gather(self, send, recv, sendcount, dtype, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcAllGather(
            _ptr(send, "send"), _ptr(recv, "recv"),
            _count(sendcount, "sendcount"), _enum(DataType, dtype, "dtype"),
            self.handle, stream), "collcAllGather")

    def reduce_scatter(self, send, recv, recvcount, dtype, op=RedOp.sum,
                       stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcReduceScatter(
            _ptr(send, "send"), _ptr(recv, "recv"),
            _count(recvcount, "recvcount"), _enum(DataType, dtype, "dtype"),
            _enum(RedOp, op, "op"), self.handle, stream),
            "collcReduceScatter")

    def all_to_all(self, send, recv, count, dtype, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcAllToAll(
            _ptr(send, "send"), _ptr(recv, "recv"), _count(count, "count"),
            _enum(DataType, dtype, "dtype"), self.handle,
            stream), "collcAllToAll")

    def broadcast(self, send, recv, count, dtype, root, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcBroadcast(
            _ptr(send, "send"), _ptr(recv, "recv"), _count(count, "count"),
            _enum(DataType, dtype, "dtype"), _count(root, "root"),
            self.handle, stream), "collcBroadcast")

    def reduce(self, send, recv, count, dtype, root, op=RedOp.sum, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcReduce(
            _ptr(send, "send"), _ptr(recv, "recv"), _count(count, "count"),
            _enum(DataType, dtype, "dtype"), _enum(RedOp, op, "op"),
            _count(root, "root"), self.handle, stream),
            "collcReduce")

    def scatter(self, send, recv, recvcount, dtype, root, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcScatter(
            _ptr(send, "send"), _ptr(recv, "recv"),
            _count(recvcount, "recvcount"), _enum(DataType, dtype, "dtype"),
            _count(root, "root"), self.handle, stream),
            "collcScatter")

    def gather(self, send, recv, sendcount, dtype, root, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcGather(
            _ptr(send, "send"), _ptr(recv, "recv"),
            _count(sendcount, "sendcount"), _enum(DataType, dtype, "dtype"),
            _count(root, "root"), self.handle, stream),
            "collcGather")

    def all_gather_v(self, send, sendcount, recv, recvcounts, dtype,
                     displs=None, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcAllGatherV(
            _ptr(send, "send"), _count(sendcount, "sendcount"),
            _ptr(recv, "recv"), _sizes(recvcounts, "recvcounts"),
            _sizes(displs, "displs"), _enum(DataType, dtype, "dtype"),
            self.handle, stream), "collcAllGatherV")

    def reduce_scatter_v(self, send, recv, recvcounts, dtype, op=RedOp.sum,
                         stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcReduceScatterV(
            _ptr(send, "send"), _ptr(recv, "recv"),
            _sizes(recvcounts, "recvcounts"), _enum(DataType, dtype, "dtype"),
            _enum(RedOp, op, "op"), self.handle, stream),
            "collcReduceScatterV")

    def all_to_all_v(self, send, sendcounts, recv, recvcounts, dtype,
                     sdispls=None, rdispls=None, stream=0):
        stream = _ptr(stream, "stream")  # Python's checks before the handle
        _check(library().collcAllToAllV(
            _ptr(send, "send"), _sizes(sendcounts, "sendcounts"),
            _sizes(sdispls, "sdispls"), _ptr(recv, "recv"),
            _sizes(recvcounts, "recvcounts"), _sizes(rdispls, "rdispls"),
            _enum(DataType, dtype, "dtype"), self.handle,
            stream), "collcAllToAllV")

"""Which library serves a call: collc, or the fallback (torch.distributed
over NCCL, for collc.torch), and why.

A call goes to collc when its communicator supports the typed collective
with the call's element type and operator (Comm.supports, asked once per
(collective, dtype, op)) and its tensors are contiguous; else, or when the
call itself is refused with InvalidArgument (a size or an alignment the
module cannot serve: the runtime checks before it queues anything, so the
fallback on the same stream is ordered as the call would have been), to
the fallback. Every fallback is counted by reason and logged once per
reason at INFO (logger "collc"); with strict=True a fallback raises
FallbackRefused instead. Any other collc error (a timeout, a CUDA error)
is raised, never hidden by a fallback.
"""
import collections
import logging

from . import Collective, DataType, InvalidArgument, RedOp

log = logging.getLogger("collc")


class FallbackRefused(RuntimeError):
    """strict=True and collc cannot serve the call: the reason."""


class Dispatcher:
    """Routes calls of one communicator (None: every call falls back, e.g.
    where collc has no communicator for this group)."""

    def __init__(self, comm, strict=False):
        self.comm = comm
        self.strict = strict
        self.fallbacks = collections.Counter()  # reason -> calls
        self.collc_calls = 0
        self._supported = {}
        self.last_reason = None

    def reason(self, collective, dtype, op=RedOp.sum, contiguous=True,
               other=None):
        """None when collc can take the call, else why not. `dtype` is a
        DataType name (e.g. "bfloat16") or a name collc does not have
        (e.g. "int32"); `op` a RedOp or its name, or a name collc does not
        have (e.g. "product"); `other` a reason the caller found itself
        (e.g. a tensor in host memory)."""
        if self.comm is None:
            return "no collc communicator for this group"
        if other is not None:
            return other
        if dtype not in DataType.__members__:
            return "collc has no element type %s" % dtype
        if isinstance(op, str) and op not in RedOp.__members__:
            return "collc has no reduction operator %s" % op
        if not contiguous:
            return "a tensor is not contiguous"
        key = (Collective[collective] if isinstance(collective, str)
               else Collective(collective), DataType[dtype],
               RedOp[op] if isinstance(op, str) else RedOp(op))
        if key not in self._supported:
            ok, why = self.comm.supports(*key)
            self._supported[key] = None if ok else why
        return self._supported[key]

    def run(self, collective, dtype, collc_call, fallback_call,
            op=RedOp.sum, contiguous=True, other=None):
        """collc_call() when collc serves the call, else fallback_call();
        the value of the one that ran."""
        why = self.reason(collective, dtype, op, contiguous, other)
        if why is None:
            try:
                result = collc_call()
                self.collc_calls += 1
                return result
            except InvalidArgument as e:
                why = str(e)
        return self._fall_back(collective, why, fallback_call)

    def _fall_back(self, collective, why, fallback_call):
        name = (collective if isinstance(collective, str)
                else Collective(collective).name)
        if self.strict:
            raise FallbackRefused("collc: %s: %s (strict: no fallback)" %
                                  (name, why))
        self.last_reason = why  # what fallback_call may report
        # "collective: reason", once (the runtime's refusals start with the
        # collective's name already).
        key = why if why.startswith(name + ": ") else "%s: %s" % (name, why)
        if key not in self.fallbacks:
            log.info("collc: %s falls back to torch.distributed: %s", name,
                     why)
        self.fallbacks[key] += 1
        return fallback_call()

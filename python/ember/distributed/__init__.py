"""ember.distributed: the names of torch.distributed, before process groups exist.

Process groups, collectives and DistributedDataParallel come with the distributed issue.
Until then this module says so the way PyTorch does on one process: `is_available()` is
False and nothing is initialised. Programs that import the functions at the top and call
them only when launched under several processes (nanoGPT's `from torch.distributed import
init_process_group`, guarded by `RANK`) import and run unchanged; calling a function that
needs a process group raises:

- `init_process_group` / `new_group`: NotImplementedError (no backend is built yet);
- the rest (`get_rank`, `all_reduce`, `barrier`, ...): ValueError, PyTorch's error for a
  default group that was never initialised.
"""
from __future__ import annotations

import enum
import os

__all__ = [
    "is_available", "is_initialized", "is_torchelastic_launched", "is_gloo_available",
    "is_nccl_available", "is_mpi_available", "init_process_group", "destroy_process_group",
    "new_group", "get_rank", "get_world_size", "get_backend", "barrier", "broadcast",
    "all_reduce", "reduce", "all_gather", "gather", "scatter", "reduce_scatter",
    "all_to_all", "send", "recv", "ReduceOp", "Backend", "GroupMember",
]

_NOT_BUILT = ("ember.distributed: process groups (Gloo, NCCL) are not built yet; they come "
              "with the distributed issue. On one process, run the program without a launcher "
              "(no RANK/WORLD_SIZE in the environment).")
_NOT_INITIALISED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


def is_available() -> bool:
    """Whether ember.distributed can create process groups: not yet (torch's is_available)."""
    return False


def is_initialized() -> bool:
    """Whether the default process group is initialised: never, while none can be made."""
    return False


def is_torchelastic_launched() -> bool:
    """Whether torchrun started this process (it sets TORCHELASTIC_RUN_ID), as torch's."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_gloo_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


class ReduceOp(enum.Enum):
    """The reductions of the collectives (torch.distributed.ReduceOp)."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"
    AVG = "avg"
    PREMUL_SUM = "premul_sum"


class Backend(str):
    """Backend names (torch.distributed.Backend): Backend("GLOO") == "gloo"."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend(): expected a backend name (str), but got "
                             f"{type(name).__name__}")
        return super().__new__(cls, name.lower())


class GroupMember:
    """The placeholders torch.distributed.GroupMember names (WORLD, NON_GROUP_MEMBER)."""

    WORLD = None
    NON_GROUP_MEMBER = -100


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    raise NotImplementedError(f"init_process_group(): {_NOT_BUILT}")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, **kwargs):
    raise NotImplementedError(f"new_group(): {_NOT_BUILT}")


def _needs_group(name):
    def fn(*args, **kwargs):
        raise ValueError(f"{name}(): {_NOT_INITIALISED} ({_NOT_BUILT})")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.distributed.{name}: needs a process group, which cannot exist yet."
    return fn


destroy_process_group = _needs_group("destroy_process_group")
get_rank = _needs_group("get_rank")
get_world_size = _needs_group("get_world_size")
get_backend = _needs_group("get_backend")
barrier = _needs_group("barrier")
broadcast = _needs_group("broadcast")
all_reduce = _needs_group("all_reduce")
reduce = _needs_group("reduce")
all_gather = _needs_group("all_gather")
gather = _needs_group("gather")
scatter = _needs_group("scatter")
reduce_scatter = _needs_group("reduce_scatter")
all_to_all = _needs_group("all_to_all")
send = _needs_group("send")
recv = _needs_group("recv")

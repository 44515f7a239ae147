"""What runs inside a DataLoader worker process: seeding, get_worker_info and the fetch loop."""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

# How long a worker waits on its index queue before checking that its parent still lives
# and that it was not told to stop (when the main process drops an iterator caught in a
# reference cycle, the queues' finalizers may run before the None sentinels are sent).
_STATUS_CHECK_INTERVAL = 0.25

_worker_info = None


@dataclass(frozen=True)
class WorkerInfo:
    """Describes the current worker: id, num_workers, seed and its replica of the dataset."""
    id: int
    num_workers: int
    seed: int
    dataset: object


def get_worker_info():
    """The WorkerInfo of the calling DataLoader worker, or None in the main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback text."""

    def __init__(self, exc_info, where: str):
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError's str() quotes its message: wrap it so the traceback stays readable.
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class KeyErrorMessage(str):
    def __repr__(self):
        return self


class _IterableEnd:
    """Sent by a worker whose IterableDataset replica is exhausted."""

    def __init__(self, worker_id: int):
        self.worker_id = worker_id


class _Resume:
    """Sent to (and echoed back by) persistent workers at the start of a new epoch."""


def _generate_state(base_seed: int, worker_id: int):
    """Four 32-bit words seeding numpy in a worker, from (base_seed, worker_id), as torch does."""
    mask = 0xFFFFFFFF
    mult_a, mult_b = 0x931E8875, 0x58F38DED
    entropy = [worker_id, base_seed & mask, base_seed >> 32, 0]
    hash_a = [0x43B0D7E5]

    def hash_value(value):
        value = (value ^ hash_a[0]) & mask
        hash_a[0] = (hash_a[0] * mult_a) & mask
        value = (value * hash_a[0]) & mask
        return (value ^ (value >> 16)) & mask

    def mix(x, y):
        result = ((0xCA01F9DD * x) & mask) - ((0x4973F715 * y) & mask)
        result &= mask
        return (result ^ (result >> 16)) & mask

    pool = [hash_value(e) for e in entropy]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hash_value(pool[src]))
    hash_b = 0x8B51F9DD
    state = []
    for i in range(4):
        data_val = pool[i]
        data_val = (data_val ^ hash_b) & mask
        hash_b = (hash_b * mult_b) & mask
        data_val = (data_val * hash_b) & mask
        state.append((data_val ^ (data_val >> 16)) & mask)
    return state


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.iterator = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for _ in index:
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def _make_fetcher(dataset, is_iterable, auto_collation, collate_fn, drop_last):
    if is_iterable:
        return _IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
    return _MapFetcher(dataset, auto_collation, collate_fn)


def _seed_worker(base_seed: int, worker_id: int) -> int:
    import ember
    seed = base_seed + worker_id
    random.seed(seed)
    ember.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return seed
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


def _worker_loop(dataset, is_iterable, index_queue, result_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 parent_pid):
    """The body of one worker: fetch the batches whose indices arrive, until told to stop."""
    global _worker_info
    try:
        import ember
        ember.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _make_fetcher(dataset, is_iterable, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(sys.exc_info(),
                                          f"in DataLoader worker process {worker_id}")
        iteration_end = False
        while True:
            try:
                task = index_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or os.getppid() != parent_pid:
                    break
                continue
            if task is None:
                break
            if isinstance(task, _Resume):
                result_queue.put((task, worker_id))
                iteration_end = False
                if init_error is None:
                    fetcher = _make_fetcher(dataset, is_iterable, auto_collation, collate_fn,
                                            drop_last)
                continue
            if done_event.is_set() or iteration_end:
                continue
            idx, index = task
            if init_error is not None:
                data, init_error = init_error, None
                iteration_end = is_iterable
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not is_iterable:
                        raise
                    data = _IterableEnd(worker_id)
                    iteration_end = True
                except Exception:
                    data = ExceptionWrapper(sys.exc_info(),
                                            f"in DataLoader worker process {worker_id}")
            result_queue.put((idx, data))
            del data
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        # Results nobody will read must not keep this process alive at exit.
        result_queue.cancel_join_thread()
        result_queue.close()

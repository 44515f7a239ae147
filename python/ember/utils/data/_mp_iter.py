"""The DataLoader iterator that loads batches in worker processes, delivered in order."""
from __future__ import annotations

import itertools
import os
import queue

from ember.utils.data._worker import ExceptionWrapper, _IterableEnd, _Resume, _worker_loop

# How long the main process waits on the result queue before checking its workers live.
_STATUS_CHECK_INTERVAL = 1.0


class _MultiProcessingDataLoaderIter:
    """Sends index batches to `num_workers` processes and yields their results in order."""

    def __init__(self, loader, base_seed):
        self._loader = loader
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        self._is_iterable = loader._is_iterable
        ctx = loader._mp_context()
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        for worker_id in range(self._num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            worker = ctx.Process(
                target=_worker_loop,
                args=(loader.dataset, self._is_iterable, index_queue, self._result_queue,
                      self._done_event, loader._auto_collation, loader.collate_fn,
                      loader.drop_last, base_seed, loader.worker_init_fn, worker_id,
                      self._num_workers, os.getpid()),
                daemon=True)
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._shutdown = False
        self._reset(first=True)

    def _reset(self, first=False):
        self._sampler_iter = iter(self._loader._index_sampler)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}   # idx -> (worker_id,) while pending, (worker_id, data) when early
        self._outstanding = 0
        self._worker_active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first:
            # Persistent workers: restart each, then drop what the last epoch left queued.
            for index_queue in self._index_queues:
                index_queue.put(_Resume())
            waiting = self._num_workers
            while waiting > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _Resume):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._worker_active[worker_id]:
                break
        else:
            return  # every worker's stream ended
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        """One (idx, data) from the result queue, honouring the timeout and dead workers."""
        if self._timeout > 0:
            try:
                return self._result_queue.get(timeout=self._timeout)
            except queue.Empty:
                raise RuntimeError(
                    f"DataLoader timed out after {self._timeout} seconds") from None
        while True:
            try:
                return self._result_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                dead = [str(w.pid) for w, active in zip(self._workers, self._worker_active)
                        if active and not w.is_alive()]
                if dead:
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited "
                                       f"unexpectedly") from None

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._worker_active[info[0]]):
                    break
                # Delivered out of order already, or its worker's stream has ended.
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            idx, data = self._get_data()
            if isinstance(idx, _Resume):
                continue
            self._outstanding -= 1
            if isinstance(data, _IterableEnd):
                self._mark_ended(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if self._in_order:
                    self._task_info[idx] += (data,)
                    continue
                del self._task_info[idx]
                return self._process(data)
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _mark_ended(self, worker_id):
        self._worker_active[worker_id] = False
        if not self._persistent:
            self._index_queues[worker_id].put(None)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return self._loader._maybe_pin(data)

    def __len__(self):
        return len(self._loader)

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for index_queue in self._index_queues:
            try:
                index_queue.put(None)
            except (OSError, ValueError):
                pass
        for worker in self._workers:
            worker.join(timeout=_STATUS_CHECK_INTERVAL)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for q in self._index_queues + [self._result_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass

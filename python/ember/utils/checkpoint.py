"""Activation checkpointing: checkpoint(fn, *args) keeps only fn's inputs and runs fn again
in backward to get its gradients; checkpoint_sequential does so per segment of a chain
(PyTorch's torch.utils.checkpoint).

Both variants are one custom autograd node whose backward re-runs fn with grad enabled and
backpropagates through the recomputed graph, accumulating into the .grad of the leaves fn
uses (parameters it closes over included). use_reentrant=False also accepts keyword
arguments and records the node when no input requires grad (so gradients still reach the
parameters); like PyTorch's reentrant variant, it supports .backward(), not
ember.autograd.grad over the checkpointed region (ember has no saved-tensor hooks).

preserve_rng_state: ember's generator has no get_state/set_state, so the forward reseeds
the default generator from a number drawn from it, and the backward reseeds with that
number before recomputing and with a fresh draw afterwards. The recomputation sees the
same random numbers as the forward (dropout masks match); the random stream after a
checkpoint differs from an unchecked run's.
"""
from __future__ import annotations

import warnings

import ember
from ember.autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential"]

_SEED_HIGH = 2 ** 62


def _draw_seed() -> int:
    return int(ember.randint(0, _SEED_HIGH, (1,)).item())


class _CheckpointFunction(Function):
    """Inputs: run_function, preserve_rng_state, anchor (a tensor or None), *args."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, anchor, *args):
        ctx.run_function = run_function
        ctx.seed = None
        if preserve_rng_state:
            ctx.seed = _draw_seed()
            ember.manual_seed(ctx.seed)
        ctx.inputs = [None if isinstance(a, ember.Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, ember.Tensor)]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
        with ember.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            detached = t.detach()
            detached.requires_grad_(t.requires_grad)
            inputs[i] = detached
        resume = None
        if ctx.seed is not None:
            resume = _draw_seed()
            ember.manual_seed(ctx.seed)
        try:
            with ember.enable_grad():
                outputs = ctx.run_function(*inputs)
        finally:
            if resume is not None:
                ember.manual_seed(resume)
        if isinstance(outputs, ember.Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, ember.Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        ember.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        input_grads = tuple(a.grad if isinstance(a, ember.Tensor) else None for a in inputs)
        return (None, None, None) + input_grads


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, context_fn=None, debug=False,
               determinism_check="default", early_stop=True, **kwargs):
    """function(*args, **kwargs), keeping only the inputs for backward, where function runs
    again. use_reentrant=None warns and means True, as in PyTorch 2.13."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if ember.is_grad_enabled() and not any(isinstance(a, ember.Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        return _CheckpointFunction.apply(function, preserve_rng_state, None, *args)
    if context_fn is not None or debug:
        raise NotImplementedError("checkpoint(): context_fn and debug are not supported by ember")
    run = function
    if kwargs:
        def run(*a):
            return function(*a, **kwargs)
    anchor = None
    if ember.is_grad_enabled() and not any(isinstance(a, ember.Tensor) and a.requires_grad for a in args):
        # A leaf that requires grad makes autograd record the node, so backward reaches the
        # parameters function closes over even when no input requires grad.
        anchor = ember.zeros((), requires_grad=True)
    return _CheckpointFunction.apply(run, preserve_rng_state, anchor, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs functions (a list or nn.Sequential) in `segments` chunks, checkpointing every
    chunk but the last. use_reentrant=None warns and means True, as in PyTorch 2.13."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences "
                      "between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if isinstance(functions, ember.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1)(input)

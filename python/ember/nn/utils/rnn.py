"""Variable-length sequences for the recurrent layers: PackedSequence and pad_sequence,
pack_padded_sequence, pad_packed_sequence, pack_sequence, unpack_sequence, unpad_sequence
(PyTorch's torch.nn.utils.rnn).

A PackedSequence holds the steps of a batch of sequences sorted by decreasing length,
time step by time step: data[sum(batch_sizes[:t]) : sum(batch_sizes[:t + 1])] are the
t-th elements of the batch_sizes[t] sequences that are longer than t.
"""
from __future__ import annotations

import ember
from ember.nn._packed_sequence import PackedSequence, invert_permutation

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


def _pack_sorted(input, lengths, batch_first):
    """data and batch_sizes of an input already sorted by decreasing lengths (a list)."""
    if batch_first:
        input = input.transpose(0, 1)
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    if lengths[0] > input.size(0):
        raise RuntimeError(f"Expected sequence length to be larger than or equal to {lengths[0]}, but got "
                           f"{input.size(0)}: the padded input is shorter than the longest length")
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    data = ember.cat([input[t, :bs] for t, bs in enumerate(batch_sizes)], 0)
    return data, ember.tensor(batch_sizes, dtype=ember.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences with the
    given lengths; unless enforce_sorted, sorts them by decreasing length first."""
    if isinstance(lengths, ember.Tensor):
        lengths = lengths.to(ember.int64)
    else:
        lengths = ember.tensor(list(lengths), dtype=ember.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = ember.sort(lengths, descending=True, stable=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_sorted(input, [int(n) for n in lengths.tolist()], batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpacks to (padded, lengths): padded is (T, B, *) (or (B, T, *)), in the original
    batch order, T = total_length or the longest length."""
    batch_sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    batch = batch_sizes[0] if batch_sizes else 0
    tail = tuple(data.shape[1:])
    steps, offset = [], 0
    for bs in batch_sizes:
        step = data[offset:offset + bs]
        if bs < batch:
            step = ember.cat([step, ember.full((batch - bs,) + tail, padding_value, dtype=data.dtype)], 0)
        steps.append(step)
        offset += bs
    steps += [ember.full((batch,) + tail, padding_value, dtype=data.dtype)] * (max_len - len(batch_sizes))
    padded = ember.stack(steps, 0) if steps else ember.zeros((0, batch) + tail, dtype=data.dtype)
    lengths = ember.tensor([sum(1 for b in batch_sizes if b > i) for i in range(batch)], dtype=ember.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding
    on padding_side ('right' or 'left') with padding_value."""
    if isinstance(sequences, ember.Tensor):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}") from None
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        gap = max_len - s.size(0)
        if gap:
            fill = ember.full((gap,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = ember.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return ember.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences padded_sequences[:lengths[i], i] (or [i, :lengths[i]])."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences.unbind(0), lengths.tolist())]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences of shapes (L_i, *)."""
    lengths = ember.tensor([s.size(0) for s in sequences], dtype=ember.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

"""Sparse tensors (issue 24) against torch.sparse and scipy.sparse: CSR @ dense (SpMM), CSR @
CSR (SpGEMM), coalesce of a COO tensor with duplicates, CSR + dense and the row sums of a
CSR matrix, and a training step of a two-layer graph convolution on a sparse adjacency.

Inputs are made once per process from the same numpy arrays (seeded), float32; each call
is one op. The scipy reference runs scipy.sparse (single-threaded) on the same matrices.
"""

import numpy as np

from runner.registry import python_case

N = 4096


def _pattern(n, density, seed):
    """COO coordinates and values of an n x n matrix with about density * n^2 entries."""
    rng = np.random.default_rng(seed)
    nnz = int(n * n * density)
    lin = np.unique(rng.integers(0, n * n, nnz))
    return np.stack([lin // n, lin % n]).astype(np.int64), rng.standard_normal(lin.size).astype(np.float32)


def _csr(lib, mod, n, density, seed):
    idx, vals = _pattern(n, density, seed)
    if lib == "scipy":
        return mod.csr_matrix((vals, (idx[0], idx[1])), shape=(n, n))
    return mod.sparse_coo_tensor(mod.from_numpy(idx), mod.from_numpy(vals), (n, n)).coalesce().to_sparse_csr()


def _dense(lib, mod, shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return a if lib == "scipy" else mod.from_numpy(a)


def _spmm(lib, mod, quick):
    a = _csr(lib, mod, N, 0.01, 1)
    b = _dense(lib, mod, (N, 64), 2)
    return lambda: a @ b


def _spgemm(lib, mod, quick):
    a = _csr(lib, mod, N, 0.005, 3)
    b = _csr(lib, mod, N, 0.005, 4)
    return lambda: a @ b


def _coalesce(lib, mod, quick):
    # 1M coordinates drawn from a 2000 x 2000 grid: about a fifth are duplicates.
    rng = np.random.default_rng(5)
    idx = rng.integers(0, 2000, (2, 1 << 20)).astype(np.int64)
    vals = rng.standard_normal(1 << 20).astype(np.float32)
    if lib == "scipy":
        m = mod.coo_matrix((vals, (idx[0], idx[1])), shape=(2000, 2000))
        return lambda: mod.coo_matrix(m).sum_duplicates()
    t = mod.sparse_coo_tensor(mod.from_numpy(idx), mod.from_numpy(vals), (2000, 2000))
    return lambda: t.coalesce()


def _add_dense(lib, mod, quick):
    a = _csr(lib, mod, N, 0.01, 6)
    d = _dense(lib, mod, (N, N), 7)
    return lambda: d + a


def _sum_rows(lib, mod, quick):
    a = _csr(lib, mod, N, 0.01, 8)
    if lib == "scipy":
        return lambda: a.sum(axis=1)
    return lambda: a.sum(dim=1, keepdim=True)  # torch sums a CSR matrix with keepdim only


def _gcn(lib, mod, quick):
    """One training step of a 2-layer GCN: H = relu(A X W1), Y = A H W2, cross entropy, SGD,
    A the symmetric-normalised adjacency (self loops) of 10k nodes and 100k random edges."""
    n, e, f, c = 10000, 100000, 64, 16
    rng = np.random.default_rng(9)
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    lin = np.unique(np.concatenate([src * n + dst, dst * n + src, np.arange(n) * (n + 1)]))
    r, col = lin // n, lin % n
    deg = np.bincount(r, minlength=n).astype(np.float32)
    vals = (1.0 / np.sqrt(deg[r] * deg[col])).astype(np.float32)
    idx = np.stack([r, col]).astype(np.int64)
    adj = mod.sparse_coo_tensor(mod.from_numpy(idx), mod.from_numpy(vals), (n, n)).coalesce().to_sparse_csr()
    x = mod.from_numpy(rng.standard_normal((n, f)).astype(np.float32))
    labels = mod.from_numpy(rng.integers(0, c, n).astype(np.int64))
    w1 = mod.from_numpy((rng.standard_normal((f, f)) * 0.1).astype(np.float32)).requires_grad_(True)
    w2 = mod.from_numpy((rng.standard_normal((f, c)) * 0.1).astype(np.float32)).requires_grad_(True)
    F = mod.nn.functional

    def step():
        h = mod.relu(adj @ (x @ w1))
        loss = F.cross_entropy(adj @ (h @ w2), labels)
        loss.backward()
        with mod.no_grad():
            for w in (w1, w2):
                w -= 0.1 * w.grad
                w.grad = None
    return step


python_case("sparse_csr_spmm_4096_1pct_x64", goals={"torch": 1.0, "scipy": 1.0}, size="4096^2 1% @ 4096x64 float32",
            note="CSR @ dense")(_spmm)
python_case("sparse_spgemm_4096_0.5pct", goals={"torch": 1.0, "scipy": 1.0}, size="4096^2 0.5% @ same",
            note="CSR @ CSR (SpGEMM)")(_spgemm)
python_case("sparse_coalesce_1M", goals={"torch": 1.0, "scipy": None}, size="1M entries, 2000^2",
            note="COO coalesce with duplicates")(_coalesce)
python_case("sparse_csr_add_dense_4096", goals={"torch": 1.0, "scipy": None}, size="4096^2 1% + dense",
            note="dense + CSR (a dense result)")(_add_dense)
python_case("sparse_csr_sum_dim1_4096", goals={"torch": 1.0, "scipy": None}, size="4096^2 1%",
            note="row sums of a CSR matrix (keepdim: torch's only form)")(_sum_rows)
python_case("sparse_gcn_step_10k", goals={"torch": 1.0}, size="10k nodes, 100k edges, 64 features",
            note="2-layer GCN training step (forward, backward, SGD)")(_gcn)

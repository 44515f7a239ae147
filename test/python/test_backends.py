"""Out-of-tree backends loaded at run time (c10/backend/Backend.h, Note [Device slots]): two
backends in one process, each dispatching to its own kernels; tensors moving between them
through the CPU; unloading restoring every dispatch table exactly; and the failures the
loader must survive with a clear exception: a file that is no library, a library that is no
backend, another ABI version, a kernel with a wrong signature, a register function without
hooks, a kernel that throws. The backends are test/backends/slot_backend.cpp, built by the
C++ test targets into <build>/test/backends/."""
import ctypes
import os

import numpy as np
import pytest

import ember

BUILD = os.environ.get("EMBER_BUILD_DIR")
pytestmark = pytest.mark.skipif(not BUILD, reason="needs EMBER_BUILD_DIR (the test backends are build outputs)")


def lib(name):
    path = os.path.join(os.path.abspath(BUILD), "test", "backends", f"libember_test_backend_{name}.so")
    assert os.path.exists(path), f"{path} is missing: build the C++ test targets"
    return path


@pytest.fixture
def clean():
    """Each test starts and ends with no backend loaded and the tables as they were."""
    assert ember.backends.loaded() == []
    before = ember._C._dispatch_tables()
    slots = ember._C._device_slots()
    yield before
    import gc
    gc.collect()
    for name in ember.backends.loaded():
        ember.backends.unload(name)
    assert ember._C._dispatch_tables() == before
    assert ember._C._device_slots() == slots


def test_two_backends_dispatch_to_their_own_kernels_and_unload_exactly(clean):
    a = ember.backends.load(lib("alpha"))
    b = ember.backends.load(lib("beta"))
    assert (a, b) == ("alpha", "beta") and ember.backends.loaded() == ["alpha", "beta"]
    assert ember._C._dispatch_tables() != clean
    x = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    y = ember.ones(2, 3)
    xa, ya = x.to("alpha"), y.to("alpha")
    xb, yb = x.to("beta:1"), y.to("beta:1")
    assert xa.device == ember.device("alpha:0") and xb.device == ember.device("beta:1")
    assert xa.is_alpha and not xa.is_beta and xb.is_beta and not x.is_alpha
    # alpha's add is the plain sum, beta's multiplies it by 10: each call reached its own kernel
    np.testing.assert_array_equal((xa + ya).cpu().numpy(), (x + y).numpy())
    np.testing.assert_array_equal((xb + yb).cpu().numpy(), (x + y).numpy() * 10)
    # alpha -> beta through the CPU
    np.testing.assert_array_equal(xa.cpu().to("beta").cpu().numpy(), x.numpy())
    # the device modules
    assert ember.alpha.device_count() == 2 and ember.alpha.is_available()
    ember.beta.manual_seed(1234)
    seed = ctypes.CDLL(lib("beta")).test_backend_seed
    seed.restype = ctypes.c_uint64
    assert seed() == 1234
    ember.alpha.synchronize()
    # unload refuses while tensors of the device live, then works
    with pytest.raises(RuntimeError, match=r"backends.unload\(\): \d+ block\(s\) of 'alpha' device memory are still alive"):
        ember.backends.unload("alpha")
    del xa, ya
    ember.backends.unload("alpha")
    assert ember.backends.loaded() == ["beta"] and not hasattr(ember, "alpha") and not hasattr(ember.Tensor, "is_alpha")
    with pytest.raises(ValueError, match=r"expected a device type"):
        ember.device("alpha")
    del xb, yb
    ember.backends.unload("beta")
    assert ember._C._dispatch_tables() == clean


def test_load_unload_load_again(clean):
    for _ in range(2):
        assert ember.backends.load(lib("alpha")) == "alpha"
        t = ember.ones(4).to("alpha")
        np.testing.assert_array_equal((t + t).cpu().numpy(), np.full(4, 2.0, np.float32))
        del t
        ember.backends.unload("alpha")
        assert ember._C._dispatch_tables() == clean


def test_a_second_load_of_one_name_is_refused(clean):
    ember.backends.load(lib("alpha"))
    with pytest.raises(RuntimeError, match=r"a backend named 'alpha' is loaded already"):
        ember.backends.load(lib("alpha"))
    assert ember.backends.loaded() == ["alpha"]


def test_abi_mismatch_is_refused_before_the_backend_runs(clean):
    with pytest.raises(RuntimeError, match=r"was built against Ember's backend interface version 2, but this Ember "
                                           r"has version 1; rebuild the backend"):
        ember.backends.load(lib("bad_abi"))
    assert ember.backends.loaded() == [] and ember._C._dispatch_tables() == clean


def test_a_kernel_with_a_wrong_signature_rolls_the_backend_back(clean):
    with pytest.raises(Exception, match=r"the register function of 'badsig' .* failed: .*add.Tensor.*everything "
                                        r"it registered is undone") as e:
        ember.backends.load(lib("bad_signature"))
    assert "signature" in str(e.value) or "schema" in str(e.value)
    assert ember.backends.loaded() == [] and ember._C._dispatch_tables() == clean
    # its slot was freed: another backend takes it
    assert ember.backends.load(lib("alpha")) == "alpha"


def test_a_kernel_shadowing_a_decomposition_is_refused(clean):
    # relu is CompositeImplicitAutograd: a backend kernel for it would lose its gradient
    with pytest.raises(ValueError, match=r"registers a kernel for aten::relu, a CompositeImplicitAutograd operator: "
                                         r".*no longer be differentiable"):
        ember.backends.load(lib("shadows"))
    assert ember.backends.loaded() == [] and ember._C._dispatch_tables() == clean


def test_a_backend_without_hooks_is_refused(clean):
    with pytest.raises(RuntimeError, match=r"did not call set_hooks\(\)"):
        ember.backends.load(lib("no_hooks"))
    assert ember.backends.loaded() == [] and ember._C._dispatch_tables() == clean


def test_a_kernel_that_throws_is_a_python_exception_and_the_process_goes_on(clean):
    ember.backends.load(lib("alpha"))
    t = ember.ones(13).to("alpha")
    with pytest.raises(ValueError, match=r"add\(\): this test backend refuses 13 elements"):
        t + t
    u = ember.ones(3).to("alpha")
    np.testing.assert_array_equal((u + u).cpu().numpy(), np.full(3, 2.0, np.float32))
    del t, u


def test_cpu_fallback_runs_counts_warns_once_and_denies(clean):
    import warnings
    ember.backends.load(lib("alpha"))  # alpha enables Ember's CPU fallback, denying aten::mm
    ember.backends.load(lib("beta"))   # beta has none
    ember.backends.reset_fallback_stats()
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    u = ember.from_numpy(x.copy()).to("alpha")
    with pytest.warns(UserWarning, match=r"aten::exp has no kernel on the 'alpha' device: it ran on the CPU"):
        e = u.exp()
    assert e.device.type == "alpha"
    np.testing.assert_allclose(e.cpu().numpy(), np.exp(x), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        u.exp()  # warned once per operator
    assert ember.backends.fallback_stats()["alpha"]["aten::exp"] == 2
    assert "beta" not in ember.backends.fallback_stats()
    # in place: the effect shows on the device tensor itself
    with pytest.warns(UserWarning):
        u.mul_(2)
    np.testing.assert_allclose(u.cpu().numpy(), x * 2, rtol=1e-6)
    # out=: the device tensor is written
    out = ember.empty(2, 3).to("alpha")
    with pytest.warns(UserWarning):
        ember.sin(u, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), np.sin(x * 2), rtol=1e-6)
    # a factory with a device argument
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = ember.zeros(4, device="alpha")
    assert z.device.type == "alpha"
    np.testing.assert_array_equal(z.cpu().numpy(), np.zeros(4, np.float32))
    # the deny list
    with pytest.raises(NotImplementedError, match=r"aten::mm\(\): the 'alpha' backend has no kernel for it, and its "
                                                  r"CPU fallback refuses it"):
        ember.mm(u, u.cpu().t().contiguous().to("alpha"))
    # no fallback: the dispatcher's error
    b = ember.ones(3).to("beta")
    with pytest.raises(NotImplementedError, match=r"exp"):
        b.exp()
    del u, e, out, z, b


def test_files_that_are_no_backend(clean, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no file"):
        ember.backends.load(tmp_path / "missing.so")
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not an ELF file")
    with pytest.raises(RuntimeError, match=r"cannot load '.*junk.so'"):
        ember.backends.load(junk)
    # a real shared library that is not an Ember backend
    import _ctypes
    with pytest.raises(RuntimeError, match=r"is not an Ember backend: it exports no ember_backend_abi"):
        ember.backends.load(_ctypes.__file__)
    with pytest.raises(ValueError, match=r"no backend named 'nothing' is loaded"):
        ember.backends.unload("nothing")
    assert ember._C._dispatch_tables() == clean

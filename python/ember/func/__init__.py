"""ember.func: function transforms (PyTorch's torch.func API): grad, grad_and_value, vjp, jvp,
jacrev, jacfwd, hessian, vmap, functional_call and stack_module_state. They are built on
ember's reverse-mode autograd; vmap loops over the batch (see its docstring)."""
from ember.func._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ember.func._functional_call import functional_call, stack_module_state
from ember.func._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call",
           "stack_module_state"]

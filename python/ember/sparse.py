"""ember.sparse, as torch.sparse: the legacy constructors ember.sparse.FloatTensor & co.
(ember/_tensor_type.py). The constructor and the Tensor methods of sparse COO tensors are
in ember/_sparse.py. Still to come (issue 24): mm, sum, softmax, log_softmax,
sampled_addmm, CSR/CSC and gradients."""
from ember._tensor_type import legacy_types as _legacy_types

globals().update(_legacy_types("ember.sparse", is_cuda=False, is_sparse=True))

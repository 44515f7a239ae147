// Note [Sparse on values] (codegen/model.py): the one kernel of every op the YAML declares
// `sparse: values` (zero-preserving in self, elementwise, self the only tensor). On a sparse
// COO self it runs the op itself on the coalesced values, through the dispatcher, so the
// dense kernel's dtype rules, errors and every later optimisation apply unchanged; the
// result has self's pattern. Coalescing first makes it right for ops that are not linear
// (abs(a) + abs(b) is not abs(a + b) for two entries at one coordinate). An op declared
// `sparse: dense` (exp, cos: f(0) != 0) runs on self's dense form instead; its result is
// strided, as the issue asks (torch has no kernel for most of them). Both kernels take every
// sparse layout: on CSR and CSC the values are the same kind of member.
#include <string>
#include <vector>

#include "aten/native/sparse/SparseTensor.h"
#include "c10/dispatch/OperatorHandle.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/ne.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

// The stack slot of `self`, the op's first argument (the model checks it is its only tensor).
IValue& self_slot(const OperatorHandle& op, Stack* stack) {
  const size_t nargs = op.schema().arguments.size();
  EMBER_CHECK(stack->size() >= nargs, op.name().str(), "(): the stack holds fewer values than the op's arguments");
  return (*stack)[stack->size() - nargs];
}

}  // namespace

void sparse_on_values(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  (void)keys;
  const std::string name = op.name().str();
  IValue& arg = self_slot(op, stack);
  const Tensor self = arg.to_tensor();
  const bool inplace = op.schema().is_mutable();  // self is the only tensor: it is what is written
  if (is_sparse_compressed(self.layout())) {
    SparseCsrTensorImpl& impl = sparse_compressed_impl(self, name.c_str());
    // A non-canonical tensor may repeat a coordinate; the op needs each coordinate once.
    const Tensor canon = impl.canonical() ? self : coo_to_compressed(coalesce_sparse_cpu(compressed_to_coo(self)),
                                                                     self.layout(), impl.compressed_indices().dtype(),
                                                                     name.c_str());
    const SparseCsrTensorImpl& c = sparse_compressed_impl(canon, name.c_str());
    if (inplace && canon.impl() != self.impl()) {
      impl.set_members(self.sizes(), c.compressed_indices(), c.plain_indices(), c.values(), true);
    }
    arg = IValue(c.values());
    op.call_boxed(stack);
    Tensor values = std::move(stack->back()).to_tensor();
    stack->pop_back();
    stack->emplace_back(inplace ? self : compressed_with_values(canon, values, name.c_str()));
    return;
  }
  SparseTensorImpl& impl = sparse_coo_impl(self, name.c_str());
  const Tensor coalesced = coalesce_sparse_cpu(self);
  const SparseTensorImpl& c = sparse_coo_impl(coalesced, name.c_str());
  if (inplace && coalesced.impl() != self.impl()) {
    // self becomes its coalesced form first; the op then writes into its values.
    impl.set_members(self.sizes(), c.sparse_dim(), c.indices(), c.values(), true);
  }
  arg = IValue(c.values());
  op.call_boxed(stack);
  Tensor values = std::move(stack->back()).to_tensor();
  stack->pop_back();
  if (inplace) {
    stack->emplace_back(self);
    return;
  }
  stack->emplace_back(make_sparse_coo(c.indices(), values, self.sizes(), true, name.c_str()));
}

void sparse_on_dense(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  (void)keys;
  // Never in-place: the model refuses `sparse: dense` on an entry that writes an argument.
  const size_t nargs = op.schema().arguments.size();
  for (size_t i = stack->size() - nargs; i < stack->size(); ++i) {
    IValue& v = (*stack)[i];
    if (v.is_tensor()) {
      const Tensor t = v.to_tensor();
      if (t.defined() && t.layout() != Layout::Strided) v = IValue(sparse_to_dense(t));
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> ts = v.to_tensor_list();
      for (Tensor& t : ts) {
        if (t.defined() && t.layout() != Layout::Strided) t = sparse_to_dense(t);
      }
      v = IValue(std::move(ts));
    }
  }
  op.call_boxed(stack);
}

void sparse_on_probe(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  // The op on a 0-d zero of self's dtype, the other arguments as given: a zero result means
  // the op keeps zeros for these arguments (Note [Sparse on values]).
  const size_t nargs = op.schema().arguments.size();
  EMBER_CHECK(stack->size() >= nargs, op.name().str(), "(): the stack holds fewer values than the op's arguments");
  Stack probe(stack->end() - static_cast<std::ptrdiff_t>(nargs), stack->end());
  const Tensor self = probe[0].to_tensor();
  probe[0] = IValue(ember::zeros({}, TensorOptions().dtype(self.dtype())));
  op.call_boxed(&probe);
  const Tensor at_zero = probe.back().to_tensor();
  const bool keeps_zero = at_zero.defined() && at_zero.numel() == 1 &&
                          !ember::ne(at_zero, Scalar(0)).item<bool>();
  if (keeps_zero) sparse_on_values(op, keys, stack);
  else sparse_on_dense(op, keys, stack);
}

}  // namespace ember::native

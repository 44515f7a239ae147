// Creates tensors, registers an operator with kernels for two keys, and dispatches it,
// printing what was routed where.
#include <iostream>

#include <ember/ember.h>

namespace {

ember::Tensor scale_cpu(const ember::Tensor& self, double factor) {
  std::cout << "  -> scale_cpu kernel (CPU) on " << self << "\n";
  ember::Tensor out = ember::empty(self.sizes(), self.scalar_type());
  const float* in = self.data_ptr_as<float>();
  float* o = out.data_ptr_as<float>();
  for (int64_t i = 0; i < self.numel(); ++i) o[i] = static_cast<float>(in[i] * factor);
  return out;
}

ember::Tensor scale_meta(const ember::Tensor& self, double) {
  std::cout << "  -> scale_meta kernel (Meta): shapes only, no data\n";
  return ember::empty(self.sizes(), ember::TensorOptions().dtype(self.scalar_type()).device(ember::Device("meta")));
}

}  // namespace

EMBER_LIBRARY(demo, m) { m.def("scale(Tensor self, float factor) -> Tensor"); }
EMBER_LIBRARY_IMPL(demo, CPU, m) { m.impl("scale", &scale_cpu); }
EMBER_LIBRARY_IMPL(demo, Meta, m) { m.impl("scale", &scale_meta); }

int main() {
  using namespace ember;
  std::cout << "Ember dispatch demo\n";
  Tensor x = empty({2, 3});
  float* p = x.data_ptr_as<float>();
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i);
  std::cout << "x = " << x << ", keys " << x.key_set() << "\n";

  auto scale = Dispatcher::singleton().find_op_or_throw("demo::scale").typed<Tensor(const Tensor&, double)>();
  std::cout << "dispatch table of demo::scale:\n" << scale.entry().dump_table();

  std::cout << "scale(x, 2.0) dispatches on " << scale.dispatch_keys(x, 2.0) << ":\n";
  Tensor y = scale.call(x, 2.0);
  std::cout << "  y = [";
  for (int i = 0; i < 6; ++i) std::cout << (i ? ", " : "") << y.data_ptr_as<float>()[i];
  std::cout << "]\n";

  Tensor m = empty({4, 5}, Device("meta"));
  std::cout << "scale(meta tensor) dispatches on " << scale.dispatch_keys(m, 3.0) << ":\n";
  Tensor my = scale.call(m, 3.0);
  std::cout << "  result " << my << "\n";

  std::cout << "the same call boxed (a Stack of IValues):\n";
  Stack stack{IValue(x), IValue(0.5)};
  scale.call_boxed(&stack);
  std::cout << "  returned " << stack.size() << " value: " << stack[0].repr() << "\n";

  Tensor v = view(x, {3, -1});
  std::cout << "view(x, {3, -1}) = " << v << ", shares storage: "
            << (v.storage().is_alias_of(x.storage()) ? "yes" : "no") << "\n";

  try {
    Tensor c = empty({2}, Device("cuda"));
  } catch (const Error& e) {
    std::cout << "empty(device='cuda') without a CUDA backend raises:\n  " << e.what() << "\n";
  }
  try {
    Dispatcher::singleton().find_op_or_throw("demo::scael");
  } catch (const Error& e) {
    std::cout << "a typo in an operator name raises:\n  " << e.what() << "\n";
  }
  return 0;
}

// The CUDA kernels (Note [The CUDA library]): on any machine with the CUDA runtime,
// libember_cuda.so loads and registers its kernels under the CUDA key; with a GPU, they
// compute what the CPU computes (values, dtypes, broadcasting, strides, CPU numbers, copies
// both ways), and the streams, events and allocator behave.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "c10/cuda/CudaRuntime.h"
#include "c10/dispatch/Dispatcher.h"
#include "ember/generated/ops/addmm.h"
#include "ember/generated/ops/bmm.h"
#include "ember/generated/ops/matmul.h"
#include "ember/generated/ops/mm.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

bool cuda_device_present() { return cuda::device_count() > 0; }
#define SKIP_WITHOUT_DEVICE() \
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device: " << cuda::unavailable_reason()

const std::vector<std::string> kCudaOps = {
    "aten::empty.memory_format", "aten::empty_strided", "aten::copy_", "aten::fill_.Scalar",
    "aten::_local_scalar_dense", "aten::add.out", "aten::add.Tensor", "aten::add_.Tensor",
    "aten::sub.out", "aten::sub.Tensor", "aten::mul.out", "aten::mul.Tensor", "aten::div.out",
    "aten::div.Tensor", "aten::add.Scalar", "aten::add_.Scalar", "aten::mul.Scalar", "aten::mul_.Scalar",
    "aten::mm", "aten::mm.out", "aten::bmm", "aten::bmm.out", "aten::addmm", "aten::addmm.out", "aten::addmm_",
    "aten::baddbmm", "aten::baddbmm.out", "aten::baddbmm_", "aten::exp.out", "aten::exp", "aten::log_",
    "aten::sqrt", "aten::rsqrt", "aten::sigmoid", "aten::tanh", "aten::sin", "aten::erf", "aten::atanh",
    "aten::sum", "aten::sum.dim_IntList", "aten::mean.dim", "aten::prod", "aten::max.dim", "aten::amax", "aten::argmax",
    "aten::all", "aten::any.dim", "aten::logsumexp", "aten::linalg_vector_norm", "aten::_softmax",
    "aten::_log_softmax", "aten::_softmax_backward_data", "aten::_log_softmax_backward_data",
    "aten::nll_loss_forward", "aten::nll_loss_backward", "aten::eq.Tensor", "aten::ne.Scalar", "aten::lt.Tensor",
    "aten::le.Scalar", "aten::gt.Tensor", "aten::ge.Scalar", "aten::where.self", "aten::clamp", "aten::clamp_min",
    "aten::clamp_max_", "aten::lerp_.Scalar", "aten::addcmul_", "aten::addcdiv_", "aten::div.Scalar",
    "aten::sub_.Scalar", "aten::uniform_", "aten::bernoulli_.float", "aten::cat", "aten::flip", "aten::roll",
    "aten::repeat", "aten::tril", "aten::triu_"};

TEST(CudaKernels, TheLibraryLoadsAndRegistersUnderTheCudaKey) {
  if (!cuda::built()) GTEST_SKIP() << "a build without CUDA";
  const std::string error = cuda::load_kernels();
  ASSERT_EQ(error, "") << "libember_cuda.so should load wherever the CUDA runtime is";
  for (const std::string& name : kCudaOps) {
    auto op = Dispatcher::singleton().find_op(name);
    ASSERT_TRUE(op.has_value()) << name;
    const std::vector<DispatchKey> keys = op->entry().registered_keys();
    EXPECT_NE(std::find(keys.begin(), keys.end(), DispatchKey::CUDA), keys.end()) << name << " has no CUDA kernel";
  }
  EXPECT_EQ(cuda::load_kernels(), "") << "loading twice is loading once";
  // Note [CUDA fallback]: an operator without a CUDA kernel of its own reaches the CPU
  // fallback, not the missing-kernel error.
  auto op = Dispatcher::singleton().find_op("aten::atan2");
  ASSERT_TRUE(op.has_value());
  const std::vector<DispatchKey> keys = op->entry().registered_keys();
  EXPECT_EQ(std::find(keys.begin(), keys.end(), DispatchKey::CUDA), keys.end()) << "atan2 has a CUDA kernel now: pick another";
  EXPECT_TRUE(op->entry().has_kernel_for(DispatchKey::CUDA));
}

TEST(CudaKernels, WithoutADeviceCudaTensorsAreAClearError) {
  if (cuda_device_present()) GTEST_SKIP() << "a GPU is present";
  try {
    ember::zeros({2}, TensorOptions().device(Device(DeviceType::CUDA, 0)));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA is not available: "), std::string::npos) << e.what();
  }
}

Tensor to_cuda0(const Tensor& t) { return t.to(Device(DeviceType::CUDA, 0)); }

void expect_cuda_matches(const Tensor& cuda_result, const Tensor& cpu_result) {
  ASSERT_EQ(cuda_result.device().type(), DeviceType::CUDA);
  EXPECT_EQ(cuda_result.scalar_type(), cpu_result.scalar_type());
  EXPECT_EQ(cuda_result.sizes(), cpu_result.sizes());
  EXPECT_TRUE(ember::equal(cuda_result.cpu(), cpu_result)) << cuda_result.cpu() << "\nvs\n" << cpu_result;
}

TEST(CudaKernels, CopiesRoundTripEveryDtypeAndLayout) {
  SKIP_WITHOUT_DEVICE();
  const Tensor base = ember::arange(24).reshape({2, 3, 4});
  for (ScalarType t : {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16,
                       ScalarType::Long, ScalarType::Int, ScalarType::Short, ScalarType::Char, ScalarType::Byte,
                       ScalarType::Bool}) {
    const Tensor x = base.to(t);
    expect_cuda_matches(to_cuda0(x), x);
    expect_cuda_matches(to_cuda0(x.transpose(0, 2)), x.transpose(0, 2));     // non-contiguous source
    expect_cuda_matches(to_cuda0(x).transpose(0, 2).contiguous(), x.transpose(0, 2).contiguous());  // device scatter
    expect_cuda_matches(to_cuda0(x).to(ScalarType::Float), x.to(ScalarType::Float));  // cast on the device
    EXPECT_TRUE(ember::equal(to_cuda0(x).cpu(), x));
  }
  const Tensor e = ember::empty({0, 3});
  expect_cuda_matches(to_cuda0(e), e);
  const Tensor z = ember::tensor({2.5}).reshape({});
  expect_cuda_matches(to_cuda0(z), z);
  EXPECT_EQ(to_cuda0(z).item().to_double(), 2.5);
}

TEST(CudaKernels, ArithmeticMatchesTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Tensor a = ember::randn({4, 5}), b = ember::randn({5}), c = ember::randn({5, 4});
  expect_cuda_matches(to_cuda0(a) + to_cuda0(b), a + b);                            // broadcast
  expect_cuda_matches(to_cuda0(a) - to_cuda0(c).t(), a - c.t());                    // transposed operand
  expect_cuda_matches(to_cuda0(a) * to_cuda0(b), a * b);
  expect_cuda_matches(to_cuda0(a) / to_cuda0(b), a / b);
  expect_cuda_matches(ember::add(to_cuda0(a), to_cuda0(b), 2.5), ember::add(a, b, 2.5));
  expect_cuda_matches(to_cuda0(a) * ember::tensor({3.0}).reshape({}), a * ember::tensor({3.0}).reshape({}));  // CPU 0-d
  expect_cuda_matches(to_cuda0(a) + 1.5, a + 1.5);
  expect_cuda_matches(to_cuda0(a) * 2, a * 2);
  const Tensor i = ember::arange(20).reshape({4, 5}), j = ember::arange(5) + 1;
  expect_cuda_matches(to_cuda0(i) + to_cuda0(j), i + j);
  expect_cuda_matches(to_cuda0(i) / to_cuda0(j), i / j);                            // integers divide in float
  expect_cuda_matches(to_cuda0(i) * to_cuda0(a), i * a);                            // promotion
  Tensor x = to_cuda0(a);
  x.add_(to_cuda0(b));
  expect_cuda_matches(x, a + b);
  const Tensor h = a.to(ScalarType::Half);
  expect_cuda_matches(to_cuda0(h) + to_cuda0(h), h + h);
}

void expect_cuda_close(const Tensor& cuda_result, const Tensor& cpu_result, double tol) {
  ASSERT_EQ(cuda_result.device().type(), DeviceType::CUDA);
  EXPECT_EQ(cuda_result.scalar_type(), cpu_result.scalar_type());
  EXPECT_TRUE(ember::allclose(cuda_result.cpu().to(ScalarType::Double), cpu_result.to(ScalarType::Double), tol, tol))
      << cuda_result.cpu() << "\nvs\n" << cpu_result;
}

TEST(CudaKernels, MatrixProductsMatchTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Tensor a = ember::randn({33, 17}), b = ember::randn({17, 9}), c = ember::randn({9});
  expect_cuda_close(ember::mm(to_cuda0(a), to_cuda0(b)), ember::mm(a, b), 1e-5);
  expect_cuda_close(ember::mm(to_cuda0(b).t(), to_cuda0(a).t()), ember::mm(b.t(), a.t()), 1e-5);  // transposed operands
  expect_cuda_close(ember::mm(to_cuda0(a).slice(1, 0, 17, 2), to_cuda0(b).slice(0, 0, 17, 2)),
                    ember::mm(a.slice(1, 0, 17, 2), b.slice(0, 0, 17, 2)), 1e-5);  // strided: copied
  expect_cuda_close(ember::addmm(to_cuda0(c), to_cuda0(a), to_cuda0(b), 0.5, 2.0), ember::addmm(c, a, b, 0.5, 2.0), 1e-5);
  const Tensor x = ember::randn({4, 6, 5}), y = ember::randn({4, 5, 3});
  expect_cuda_close(ember::bmm(to_cuda0(x), to_cuda0(y)), ember::bmm(x, y), 1e-5);
  expect_cuda_close(ember::matmul(to_cuda0(x), to_cuda0(y)), ember::matmul(x, y), 1e-5);
  for (ScalarType t : {ScalarType::Double, ScalarType::Half, ScalarType::BFloat16}) {
    const double tol = t == ScalarType::Double ? 1e-12 : 5e-2;
    expect_cuda_close(ember::mm(to_cuda0(a.to(t)), to_cuda0(b.to(t))), ember::mm(a.to(t), b.to(t)), tol);
  }
  EXPECT_THROW(ember::mm(to_cuda0(ember::ones({2, 2}, TensorOptions().dtype(ScalarType::Long))),
                         to_cuda0(ember::ones({2, 2}, TensorOptions().dtype(ScalarType::Long)))),
               NotImplementedError);
  EXPECT_THROW(ember::mm(to_cuda0(a), to_cuda0(a)), Error);  // shapes cannot be multiplied
}

TEST(CudaKernels, MixingDevicesIsAValueError) {
  SKIP_WITHOUT_DEVICE();
  const Tensor a = ember::randn({3});
  EXPECT_THROW(to_cuda0(a) + a, ValueError);
}

TEST(CudaKernels, StreamsAndEvents) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_EQ(cuda::current_stream(0).handle, 0u);
  const DeviceStream s = cuda::stream_from_pool(false, 0);
  EXPECT_NE(s.handle, 0u);
  cuda::set_current_stream(s);
  EXPECT_EQ(cuda::current_stream(0), s);
  const Tensor x = to_cuda0(ember::ones({1 << 20}));
  void* start = cuda::event_create(true, false);
  void* end = cuda::event_create(true, false);
  cuda::event_record(start, s);
  const Tensor y = x + x;
  cuda::event_record(end, s);
  cuda::event_synchronize(end);
  EXPECT_TRUE(cuda::event_query(end));
  EXPECT_GE(cuda::event_elapsed_ms(start, end), 0.0f);
  EXPECT_TRUE(ember::equal(y.cpu(), ember::full({1 << 20}, 2.0)));
  cuda::event_destroy(start);
  cuda::event_destroy(end);
  cuda::set_current_stream(cuda::default_stream(0));
}

}  // namespace
}  // namespace ember

// Uses the installed Ember as an application would: a float32 and a float64 matmul (oneDNN's
// and the BLAS's GEMM), a linear solve (LAPACK) and a small 2-d convolution (oneDNN's path),
// each checked against a plain loop; and a traced graph (the README's "run from C++"): a
// chain ending in a row sum, traced, optimised (fused), saved, loaded and run on new inputs.
// Prints "consumer: ok" and exits 0 when all agree.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace {

int failures = 0;

void expect_close(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("consumer: %s: got %.9g, want %.9g\n", what, got, want);
    ++failures;
  }
}

template <class T>
ember::Tensor filled(std::initializer_list<int64_t> sizes, ember::ScalarType dtype, double (*f)(int64_t)) {
  ember::Tensor t = ember::empty(sizes, dtype);
  T* p = t.data_ptr_as<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(f(i));
  return t;
}

double wave(int64_t i) { return std::sin(0.37 * static_cast<double>(i)) + 0.25; }
double ramp(int64_t i) { return static_cast<double>(i % 7) - 3.0; }

template <class T>
void check_matmul(ember::ScalarType dtype, const char* name, double tol) {
  const int64_t n = 48, k = 40, m = 36;
  ember::Tensor a = filled<T>({n, k}, dtype, wave), b = filled<T>({k, m}, dtype, ramp);
  ember::Tensor c = ember::matmul(a, b).contiguous();
  const T *pa = a.data_ptr_as<T>(), *pb = b.data_ptr_as<T>(), *pc = c.data_ptr_as<T>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double want = 0;
      for (int64_t l = 0; l < k; ++l) want += double(pa[i * k + l]) * double(pb[l * m + j]);
      expect_close(name, pc[i * m + j], want, tol);
    }
}

void check_solve() {
  const int64_t n = 16, r = 3;
  ember::Tensor a = filled<double>({n, n}, ember::ScalarType::Double, wave);
  double* pa = a.data_ptr_as<double>();
  for (int64_t i = 0; i < n; ++i) pa[i * n + i] += 2.0 * n;  // diagonally dominant
  ember::Tensor b = filled<double>({n, r}, ember::ScalarType::Double, ramp);
  ember::Tensor x = ember::linalg_solve(a, b).contiguous();
  const double *px = x.data_ptr_as<double>(), *pb = b.data_ptr_as<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < r; ++j) {
      double ax = 0;
      for (int64_t l = 0; l < n; ++l) ax += pa[i * n + l] * px[l * r + j];
      expect_close("linalg_solve: A @ X", ax, pb[i * r + j], 1e-10);
    }
}

void check_conv2d() {
  const int64_t N = 2, C = 3, H = 8, W = 8, O = 4, K = 3;  // 64 elements per channel: oneDNN
  ember::Tensor x = filled<float>({N, C, H, W}, ember::ScalarType::Float, wave);
  ember::Tensor w = filled<float>({O, C, K, K}, ember::ScalarType::Float, ramp);
  ember::Tensor bias = filled<float>({O}, ember::ScalarType::Float, ramp);
  ember::Tensor y = ember::convolution(x, w, bias, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1).contiguous();
  if (y.dim() != 4 || y.size(2) != H || y.size(3) != W) {
    std::printf("consumer: conv2d: wrong output shape\n");
    ++failures;
    return;
  }
  const float *px = x.data_ptr_as<float>(), *pw = w.data_ptr_as<float>(), *py = y.data_ptr_as<float>();
  const float* pbias = bias.data_ptr_as<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < H; ++i)
        for (int64_t j = 0; j < W; ++j) {
          double want = pbias[o];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t u = 0; u < K; ++u)
              for (int64_t v = 0; v < K; ++v) {
                int64_t ii = i + u - 1, jj = j + v - 1;
                if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
                want += double(px[((n * C + c) * H + ii) * W + jj]) * pw[((o * C + c) * K + u) * K + v];
              }
          expect_close("conv2d", py[((n * O + o) * H + i) * W + j], want, 1e-4);
        }
}

void check_traced_graph() {
  const int64_t n = 5, m = 300;
  ember::Tensor x = filled<float>({n, m}, ember::ScalarType::Float, wave);
  ember::Tensor w = filled<float>({m}, ember::ScalarType::Float, ramp);
  ember::jit::begin_trace({{"x", x}, {"w", w}});
  ember::Tensor y;
  try {
    y = ember::sum(ember::add(ember::mul(ember::exp(x), w), x), std::vector<int64_t>{-1});
  } catch (...) {
    ember::jit::abort_trace();
    throw;
  }
  ember::jit::TracedProgram traced;
  traced.graph = ember::jit::end_trace({y});
  ember::jit::optimize(traced.graph);
  if (traced.graph.nodes.size() != 1 || traced.graph.nodes[0].op != "ember::fused_elementwise") {
    std::printf("consumer: jit: expected one fused node, got\n%s\n", traced.graph.str().c_str());
    ++failures;
  }
  traced.bound = {{"w", w}};
  const std::string path = (std::filesystem::temp_directory_path() / "ember_consumer_graph.ember").string();
  ember::jit::save(traced, path);
  ember::jit::TracedProgram p = ember::jit::load(path);
  std::filesystem::remove(path);
  ember::Tensor x2 = filled<float>({n, m}, ember::ScalarType::Float, ramp);
  std::vector<ember::Tensor> out = p.run({x2});
  if (out.size() != 1 || out[0].dim() != 1 || out[0].size(0) != n) {
    std::printf("consumer: jit: wrong outputs\n");
    ++failures;
    return;
  }
  const float *px = x2.data_ptr_as<float>(), *pw = w.data_ptr_as<float>();
  const float* py = out[0].contiguous().data_ptr_as<float>();
  for (int64_t i = 0; i < n; ++i) {
    double want = 0;
    for (int64_t j = 0; j < m; ++j) want += std::exp(double(px[i * m + j])) * pw[j] + px[i * m + j];
    expect_close("jit: loaded graph", py[i], want, 1e-5);
  }
}

}  // namespace

int main() {
  check_matmul<float>(ember::ScalarType::Float, "matmul float32", 1e-4);
  check_matmul<double>(ember::ScalarType::Double, "matmul float64", 1e-12);
  check_solve();
  check_conv2d();
  check_traced_graph();
  if (failures) {
    std::printf("consumer: %d mismatches\n", failures);
    return 1;
  }
  std::printf("consumer: ok\n");
  return 0;
}

// Every CPU kernel under every capability the machine has, against the baseline build's
// (Note [CPU capabilities]). The test runs this binary again once per capability, with
// EMBER_CPU_CAPABILITY set and EMBER_CAPABILITY_DUMP naming a file: that child calls every
// aten operator it can build arguments for (tensor arguments of every dtype, contiguous and
// transposed, 67x33 so vector bodies and tails both run; numbers for Scalar arguments;
// schema defaults for the rest) and writes each outcome, a result or an error message. The
// parent compares the files: the same outcomes, integers and bools bit for bit, floats
// within a few ulps (SLEEF's vector functions and the scalar ones differ in the last
// bit), NaNs in the same places.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "c10/dispatch/Dispatcher.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_strided.h"
#include "test/cpp/ember_api.h"

extern char** environ;

namespace ember {
namespace {

const std::vector<ScalarType> kDtypes = {
    ScalarType::Float, ScalarType::Double, ScalarType::Half,  ScalarType::BFloat16,
    ScalarType::Long,  ScalarType::Int,    ScalarType::Short, ScalarType::Char,
    ScalarType::Byte,  ScalarType::Bool,   ScalarType::ComplexFloat, ScalarType::ComplexDouble};

// Inputs: mostly values in [-3, 3], with zeros, ones, signed zeros, infinities and NaNs
// sprinkled in; `salt` makes the operands of one call differ.
Tensor input(ScalarType dtype, bool transposed, int salt) {
  const int64_t rows = 67, cols = 33;
  Tensor d = empty({rows, cols}, TensorOptions().dtype(ScalarType::Double));
  double* p = static_cast<double*>(d.data_ptr());
  uint64_t state = 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(salt + 1);
  const double specials[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, 100.0, -2.5};
  for (int64_t i = 0; i < rows * cols; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint32_t r = static_cast<uint32_t>(state >> 33);
    p[i] = (r % 17 == 0) ? specials[(r / 17) % 10] : (static_cast<double>(r % 60000) / 10000.0 - 3.0);
  }
  Tensor src = d.to(dtype);
  if (!transposed) return src;
  Tensor t = empty_strided({rows, cols}, {1, rows}, TensorOptions().dtype(dtype));
  t.copy_(src);
  return t;
}

// The arguments of one call, or false when the schema needs what this test cannot make.
bool make_args(const FunctionSchema& s, ScalarType dtype, bool transposed, Stack* stack) {
  int tensors = 0;
  for (const Argument& a : s.arguments) {
    const SchemaType& t = a.type;
    if (a.alias && a.alias->is_write) return false;  // in-place and out=: same kernels
    if (t.base == BaseType::Tensor && !t.is_list && !t.optional) {
      stack->emplace_back(input(dtype, transposed, tensors++));
    } else if (t.base == BaseType::Scalar && !t.is_list && !a.default_text) {
      stack->emplace_back(Scalar(0.75));
    } else if (a.default_text) {
      break;  // this and the rest take their defaults
    } else {
      return false;
    }
  }
  return tensors > 0;
}

void write_tensor(std::ostream& os, const Tensor& t) {
  Tensor c = t.contiguous();
  os << "tensor " << static_cast<int>(c.dtype()) << " " << c.dim();
  for (int64_t d : c.sizes()) os << " " << d;
  const size_t bytes = static_cast<size_t>(c.numel()) * itemsize(c.dtype());
  os << " " << bytes << "\n";
  os.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(bytes));
  os << "\n";
}

// The child: every callable op, written to `path`.
void dump(const char* path) {
  std::ofstream os(path, std::ios::binary);
  for (const OperatorHandle& op : Dispatcher::singleton().ops()) {
    const FunctionSchema& s = op.schema();
    if (s.name.ns != "aten") continue;
    // Uninitialised results have nothing to compare.
    if (s.name.name.rfind("empty", 0) == 0 || s.name.name.rfind("new_empty", 0) == 0) continue;
    for (ScalarType dtype : kDtypes) {
      for (bool transposed : {false, true}) {
        Stack stack;
        if (!make_args(s, dtype, transposed, &stack)) continue;
        os << "call " << s.name.str() << " " << static_cast<int>(dtype) << " " << transposed << "\n";
        try {
          op.call_boxed(&stack);
        } catch (const std::exception& e) {
          std::string what = e.what();
          what = what.substr(0, what.find('\n'));
          os << "error " << what << "\n";
          continue;
        }
        for (const IValue& v : stack) {
          // A sparse result (to_sparse_csr of a strided input) is compared through its dense form.
          if (v.is_tensor() && v.to_tensor().layout() != Layout::Strided) write_tensor(os, v.to_tensor()._to_dense());
          else if (v.is_tensor()) write_tensor(os, v.to_tensor());
          else os << "value\n";
        }
      }
    }
  }
}

struct Outcome {
  std::string call;
  std::vector<std::string> lines;  // "error ..." or tensor headers
  std::vector<std::string> blobs;  // tensor bytes
  std::vector<ScalarType> dtypes;
};

std::vector<Outcome> read_dump(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  std::vector<Outcome> out;
  std::string line;
  while (std::getline(is, line)) {
    if (line.rfind("call ", 0) == 0) {
      out.push_back({line, {}, {}, {}});
    } else if (line.rfind("tensor ", 0) == 0) {
      std::istringstream h(line.substr(7));
      int dtype, dim;
      h >> dtype >> dim;
      int64_t size;
      for (int i = 0; i < dim; ++i) h >> size;
      size_t bytes;
      h >> bytes;
      std::string blob(bytes, '\0');
      is.read(blob.data(), static_cast<std::streamsize>(bytes));
      std::getline(is, line);  // the newline after the bytes
      out.back().lines.push_back(h.str());
      out.back().blobs.push_back(std::move(blob));
      out.back().dtypes.push_back(static_cast<ScalarType>(dtype));
    } else {
      out.back().lines.push_back(line);
    }
  }
  return out;
}

// Element i of a float blob as double.
double element(const std::string& blob, ScalarType t, size_t i) {
  auto at = [&](auto v) {
    std::memcpy(&v, blob.data() + i * sizeof(v), sizeof(v));
    return v;
  };
  switch (t) {
    case ScalarType::Float: return at(float{});
    case ScalarType::Double: return at(double{});
    case ScalarType::Half: return static_cast<float>(at(Half{}));
    case ScalarType::BFloat16: return static_cast<float>(at(BFloat16{}));
    case ScalarType::ComplexFloat: return at(float{});  // real and imaginary parts in turn
    case ScalarType::ComplexDouble: return at(double{});
    default: return 0;
  }
}

size_t float_count(const std::string& blob, ScalarType t) {
  switch (t) {
    case ScalarType::Float: case ScalarType::ComplexFloat: return blob.size() / 4;
    case ScalarType::Double: case ScalarType::ComplexDouble: return blob.size() / 8;
    case ScalarType::Half: case ScalarType::BFloat16: return blob.size() / 2;
    default: return 0;
  }
}

// Relative tolerance of one result element: a few units in the last place of the dtype.
double tolerance(ScalarType t) {
  switch (t) {
    case ScalarType::Double: case ScalarType::ComplexDouble: return 1e-14;
    case ScalarType::Half: return 2e-3;
    case ScalarType::BFloat16: return 1.6e-2;
    default: return 1e-6;
  }
}

std::string compare(const Outcome& base, const Outcome& other) {
  if (base.lines != other.lines) {
    return base.call + ": outcome differs: '" + (base.lines.empty() ? "" : base.lines[0]) +
           "' vs '" + (other.lines.empty() ? "" : other.lines[0]) + "'";
  }
  for (size_t k = 0; k < base.blobs.size(); ++k) {
    const ScalarType t = base.dtypes[k];
    if (!is_floating_point(t) && !is_complex(t)) {
      if (base.blobs[k] != other.blobs[k]) return base.call + ": integer result differs";
      continue;
    }
    const double tol = tolerance(t);
    for (size_t i = 0, n = float_count(base.blobs[k], t); i < n; ++i) {
      const double a = element(base.blobs[k], t, i), b = element(other.blobs[k], t, i);
      if (std::isnan(a) != std::isnan(b) || (std::isinf(a) && a != b)) {
        return base.call + ": element " + std::to_string(i) + ": " + std::to_string(a) + " vs " +
               std::to_string(b);
      }
      if (std::isnan(a) || std::isinf(a)) continue;
      if (std::abs(a - b) > tol * std::max(std::abs(a), 1e-30) + 1e-37) {
        std::ostringstream m;
        m.precision(17);
        m << base.call << ": element " << i << ": " << a << " vs " << b;
        return m.str();
      }
    }
  }
  return "";
}

// Runs this test binary's dump test under `capability`, writing to `path`.
bool run_child(const char* capability, const std::string& path) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "EMBER_CPU_CAPABILITY=", 21) != 0 && std::strncmp(*e, "EMBER_CAPABILITY_DUMP=", 22) != 0) {
      env_strings.emplace_back(*e);
    }
  }
  env_strings.push_back(std::string("EMBER_CPU_CAPABILITY=") + capability);
  env_strings.push_back("EMBER_CAPABILITY_DUMP=" + path);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", filter = "--gtest_filter=CpuCapability.Dump";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()) != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(CpuCapability, Dump) {
  const char* path = std::getenv("EMBER_CAPABILITY_DUMP");
  if (!path) GTEST_SKIP() << "the child half of EveryKernelMatchesTheBaseline";
  dump(path);
}

TEST(CpuCapability, IsTheBestTheCpuAndBuildHave) {
  const CpuCapability c = cpu_capability();
  EXPECT_LE(static_cast<int>(c), static_cast<int>(native_cpu_capability()));
  EXPECT_TRUE(cpu_capability_compiled(c));
  EXPECT_TRUE(cpu_capability_compiled(CpuCapability::Default));
  if (!std::getenv("EMBER_CPU_CAPABILITY")) {
    for (int k = static_cast<int>(c) + 1; k <= static_cast<int>(native_cpu_capability()); ++k) {
      EXPECT_FALSE(cpu_capability_compiled(static_cast<CpuCapability>(k)));
    }
  }
  EXPECT_STREQ(cpu_capability_name(CpuCapability::AVX512), "AVX512");
  EXPECT_STREQ(cpu_capability_name(CpuCapability::Default), "DEFAULT");
}

TEST(CpuCapability, EveryKernelMatchesTheBaseline) {
  if (std::getenv("EMBER_CAPABILITY_DUMP")) GTEST_SKIP();
  std::vector<const char*> others;
  if (native_cpu_capability() >= CpuCapability::AVX2 && cpu_capability_compiled(CpuCapability::AVX2)) {
    others.push_back("avx2");
  }
  if (native_cpu_capability() >= CpuCapability::AVX512 && cpu_capability_compiled(CpuCapability::AVX512)) {
    others.push_back("avx512");
  }
  if (others.empty()) GTEST_SKIP() << "this machine or build has only the baseline capability";
  const std::string dir = ::testing::TempDir();
  const std::string base_path = dir + "ember_capability_default.bin";
  ASSERT_TRUE(run_child("default", base_path));
  const std::vector<Outcome> base = read_dump(base_path);
  ASSERT_GT(base.size(), 500u) << "too few calls: the argument builder missed the ops";
  for (const char* cap : others) {
    const std::string path = dir + "ember_capability_" + cap + ".bin";
    ASSERT_TRUE(run_child(cap, path)) << cap;
    const std::vector<Outcome> got = read_dump(path);
    ASSERT_EQ(got.size(), base.size()) << cap;
    int failures = 0;
    for (size_t i = 0; i < base.size() && failures < 20; ++i) {
      ASSERT_EQ(base[i].call, got[i].call);
      const std::string problem = compare(base[i], got[i]);
      if (!problem.empty()) {
        ADD_FAILURE() << cap << ": " << problem;
        ++failures;
      }
    }
    std::remove(path.c_str());
  }
  std::remove(base_path.c_str());
}

}  // namespace
}  // namespace ember

// Random numbers: the Philox generator (known answers, seeds, offsets, thread safety), the
// stream layout (same bits for any work split and any strides), the distributions
// (moments and chi-square counts against the formulas torch and numpy implement, with
// fixed seeds), every dtype each op supports, Meta shapes, and bad inputs.
//
// Bit-for-bit agreement with PyTorch is not a goal (torch's CPU generator is an mt19937);
// see Note [Philox stream layout] in aten/PhiloxGenerator.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "aten/native/cpu/random_loops.h"
#include "c10/util/Half.h"
#include "ember/generated/ops/bernoulli.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/mean.h"
#include "ember/generated/ops/multinomial.h"
#include "ember/generated/ops/ones.h"
#include "ember/generated/ops/rand.h"
#include "ember/generated/ops/rand_like.h"
#include "ember/generated/ops/randint.h"
#include "ember/generated/ops/randint_like.h"
#include "ember/generated/ops/randn.h"
#include "ember/generated/ops/randn_like.h"
#include "ember/generated/ops/randperm.h"
#include "ember/generated/ops/zeros.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using native::set_random_threading;

const Device kMeta(DeviceType::Meta);

// ---- helpers ------------------------------------------------------------------------

// Calls f(i, offset) for each element of t in logical order.
void for_each_element(const Tensor& t, const std::function<void(int64_t, int64_t)>& f) {
  native::random_detail::for_each_offset(t.sizes(), t.strides(), f);
}

// t's elements in logical order as doubles (complex: real and imaginary parts interleaved).
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const char* base = static_cast<const char*>(t.data_ptr());
  for_each_element(t, [&](int64_t, int64_t off) {
    const char* p = base + off * static_cast<int64_t>(t.element_size());
    switch (t.dtype()) {
      case ScalarType::Bool: out.push_back(*reinterpret_cast<const bool*>(p)); break;
      case ScalarType::Byte: out.push_back(*reinterpret_cast<const uint8_t*>(p)); break;
      case ScalarType::Char: out.push_back(*reinterpret_cast<const int8_t*>(p)); break;
      case ScalarType::Short: out.push_back(*reinterpret_cast<const int16_t*>(p)); break;
      case ScalarType::Int: out.push_back(*reinterpret_cast<const int32_t*>(p)); break;
      case ScalarType::Long: out.push_back(static_cast<double>(*reinterpret_cast<const int64_t*>(p))); break;
      case ScalarType::Half: out.push_back(float(*reinterpret_cast<const Half*>(p))); break;
      case ScalarType::BFloat16: out.push_back(float(*reinterpret_cast<const BFloat16*>(p))); break;
      case ScalarType::Float: out.push_back(*reinterpret_cast<const float*>(p)); break;
      case ScalarType::Double: out.push_back(*reinterpret_cast<const double*>(p)); break;
      case ScalarType::ComplexFloat: {
        auto c = *reinterpret_cast<const std::complex<float>*>(p);
        out.push_back(c.real());
        out.push_back(c.imag());
        break;
      }
      case ScalarType::ComplexDouble: {
        auto c = *reinterpret_cast<const std::complex<double>*>(p);
        out.push_back(c.real());
        out.push_back(c.imag());
        break;
      }
      default: ADD_FAILURE() << "unexpected dtype";
    }
  });
  return out;
}

std::vector<int64_t> int_values(const Tensor& t) {
  std::vector<int64_t> out;
  if (t.dtype() == ScalarType::Long) {
    const int64_t* p = static_cast<const int64_t*>(t.data_ptr());
    for_each_element(t, [&](int64_t, int64_t off) { out.push_back(p[off]); });
    return out;
  }
  for (double v : values(t)) out.push_back(static_cast<int64_t>(v));
  return out;
}

// t's raw bytes in logical order: equal bits, element for element.
std::vector<uint8_t> bits(const Tensor& t) {
  std::vector<uint8_t> out;
  const size_t item = t.element_size();
  const uint8_t* base = static_cast<const uint8_t*>(t.data_ptr());
  for_each_element(t, [&](int64_t, int64_t off) {
    out.insert(out.end(), base + off * static_cast<int64_t>(item), base + (off + 1) * static_cast<int64_t>(item));
  });
  return out;
}

// A tensor of the given geometry inside a fresh storage of `storage` elements.
Tensor strided(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t storage,
               ScalarType dtype) {
  Tensor t = ember::empty({storage}, dtype);
  std::memset(t.data_ptr(), 0x5A, static_cast<size_t>(storage) * t.element_size());
  t.impl()->set_sizes_and_strides(sizes, strides, offset);
  return t;
}

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double variance(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}
double central_moment(const std::vector<double>& v, int k) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += std::pow(x - m, k);
  return s / static_cast<double>(v.size());
}

// Pearson's chi-square statistic and the value it exceeds with probability ~1e-6 under the
// null (Wilson-Hilferty approximation of the chi-square quantile, z = 4.75).
double chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  double s = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    s += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  }
  return s;
}
double chi_square_critical(double dof) {
  const double a = 2.0 / (9.0 * dof);
  return dof * std::pow(1.0 - a + 4.75 * std::sqrt(a), 3);
}

// Expects fn to throw E with a message containing each of `parts`.
template <class E>
void expect_error(const std::function<void()>& fn, std::initializer_list<const char*> parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    for (const char* p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' lacks '" << p << "'";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

PhiloxGenerator& philox(const Generator& g) { return *dynamic_cast<PhiloxGenerator*>(g.impl()); }

const ScalarType kFloating[] = {ScalarType::Half, ScalarType::BFloat16, ScalarType::Float,
                                ScalarType::Double};
const ScalarType kReal[] = {ScalarType::Bool, ScalarType::Byte, ScalarType::Char, ScalarType::Short,
                            ScalarType::Int, ScalarType::Long, ScalarType::Half,
                            ScalarType::BFloat16, ScalarType::Float, ScalarType::Double};

// Restores the default work split after a test changes it.
struct ThreadingGuard {
  ~ThreadingGuard() { set_random_threading(0, 0); }
};

// ---- the generator ------------------------------------------------------------------

TEST(RandomPhilox, KnownAnswerVectors) {
  // Random123 tests/kat_vectors, "philox4x32 10" lines: counter, key -> output.
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomPhilox, StreamBlocksFollowSeedAndOffset) {
  PhiloxStream s{0x299f31d0a4093822ull, 5};
  EXPECT_EQ(s.block(2), philox4x32_10({7, 0, 0, 0}, {0xa4093822, 0x299f31d0}));
  // for_each hands element i the words [i * W, (i + 1) * W) of the stream.
  std::vector<uint32_t> seen;
  s.for_each<2>(1, 4, [&](int64_t i, const uint32_t* w) { seen.insert(seen.end(), w, w + 2); });
  const PhiloxBlock b0 = s.block(0), b1 = s.block(1);
  EXPECT_EQ(seen, (std::vector<uint32_t>{b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]}));
}

TEST(RandomPhilox, BatchedBlocksMatchTheScalarFunction) {
  // philox_blocks takes 8 blocks at a time with AVX2; across the 2^32 carry of the counter.
  const uint64_t seed = 0x0123456789abcdefull, first = (uint64_t{1} << 32) - 13;
  std::vector<uint32_t> batched(4 * 37);
  philox_blocks(seed, first, 37, batched.data());
  for (uint64_t b = 0; b < 37; ++b) {
    const uint64_t c = first + b;
    const PhiloxBlock expected = philox4x32_10(
        {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0, 0},
        {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), batched.begin() + 4 * b)) << b;
  }
}

// Fixed bits for seed 0: the stream layout and the arithmetic (Note [Reproducible
// arithmetic]) give these in every build, with or without AVX/FMA (CI also runs this in
// its baseline-ISA sanitizer build).
template <class U>
std::vector<U> raw(const Tensor& t) {
  std::vector<U> out(static_cast<size_t>(t.numel()));
  std::memcpy(out.data(), t.data_ptr(), out.size() * sizeof(U));
  return out;
}

TEST(RandomPhilox, GoldenBitsForSeedZero) {
  auto g = [] { return make_cpu_generator(0); };
  EXPECT_EQ(raw<uint32_t>(ember::rand({6}, g())),
            (std::vector<uint32_t>{0x3e1fa354, 0x3ed38b1a, 0x3eaf5898, 0x3b5bd800, 0x3f64cca4,
                                   0x3f3200db}));
  EXPECT_EQ(raw<uint64_t>(ember::rand({3}, g(), ScalarType::Double)),
            (std::vector<uint64_t>{0x3fd38b1acc4fd1aa, 0x3f9b7b178af58980, 0x3fe200dbf8e4cca4}));
  EXPECT_EQ(raw<uint16_t>(ember::rand({4}, g(), ScalarType::Half)),
            (std::vector<uint16_t>{0x2ea8, 0x398d, 0x384c, 0x37b0}));
  EXPECT_EQ(raw<uint32_t>(ember::randn({6}, g())),
            (std::vector<uint32_t>{0x3f1355ce, 0x3f5b7227, 0xbd384dc1, 0x3d8c570f, 0x3f9afa09,
                                   0xbf745af0}));
  EXPECT_EQ(raw<uint16_t>(ember::randn({4}, g(), ScalarType::BFloat16)),
            (std::vector<uint16_t>{0x3f13, 0x3f5b, 0xbd38, 0x3d8c}));
  EXPECT_EQ(raw<int64_t>(ember::randint(-50, 50, {6}, g())),
            (std::vector<int64_t>{-9, 3, -2, 10, 14, 49}));
  EXPECT_EQ(raw<uint8_t>(ember::empty({8}, ScalarType::Byte).bernoulli_(0.5, g())),
            (std::vector<uint8_t>{1, 1, 0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(raw<int64_t>(ember::randperm(8, g())), (std::vector<int64_t>{5, 4, 6, 1, 0, 3, 7, 2}));
  EXPECT_EQ(raw<int64_t>(ember::multinomial(ember::rand({5}, make_cpu_generator(1)), 4, false, g())),
            (std::vector<int64_t>{0, 1, 2, 4}));
}

TEST(RandomGenerator, DefaultsAndSeeding) {
  Generator g = make_cpu_generator();
  EXPECT_EQ(g.initial_seed(), 67280421310721ull);
  EXPECT_EQ(g.device(), Device(DeviceType::CPU));
  Generator d = default_generator(DeviceType::CPU);
  ASSERT_NE(dynamic_cast<PhiloxGenerator*>(d.impl()), nullptr);
  manual_seed(1234);
  EXPECT_EQ(d.initial_seed(), 1234u);
  EXPECT_EQ(philox(d).offset(), 0u);
  ember::rand({3});
  EXPECT_EQ(philox(d).offset(), 4u);
  d.manual_seed(99);  // restarts the stream
  EXPECT_EQ(philox(d).offset(), 0u);
  EXPECT_EQ(d.initial_seed(), 99u);
}

TEST(RandomGenerator, OffsetAdvancesByWholeBlocksOfWordsUsed) {
  Generator g = make_cpu_generator(5);
  PhiloxGenerator& p = philox(g);
  ember::rand({5}, g);  // float: 1 word each -> 8
  EXPECT_EQ(p.offset(), 8u);
  ember::rand({3}, g, ScalarType::Double);  // 2 words each -> 8
  EXPECT_EQ(p.offset(), 16u);
  ember::randn({5}, g);  // 3 Box-Muller pairs, 2 words each -> 8
  EXPECT_EQ(p.offset(), 24u);
  ember::randn({1}, g, ScalarType::ComplexDouble);  // 1 pair of 4 words
  EXPECT_EQ(p.offset(), 28u);
  ember::randint(10, {3}, g);  // range < 2^32: 1 word each
  EXPECT_EQ(p.offset(), 32u);
  ember::empty({3}, ScalarType::Long).random_(g);  // int64 random_(): 2 words each
  EXPECT_EQ(p.offset(), 40u);
  ember::rand({0, 4}, g);  // nothing drawn
  EXPECT_EQ(p.offset(), 40u);
  ember::randperm(4, g);  // 3 swaps, 2 words each
  EXPECT_EQ(p.offset(), 48u);
  EXPECT_THROW(p.set_offset(3), ValueError);
}

TEST(RandomGenerator, SameSeedSameBitsAndStreamContinues) {
  Generator a = make_cpu_generator(42), b = make_cpu_generator(42), c = make_cpu_generator(43);
  Tensor x = ember::rand({1000}, a), y = ember::rand({1000}, b), z = ember::rand({1000}, c);
  EXPECT_EQ(bits(x), bits(y));
  EXPECT_NE(bits(x), bits(z));
  // Two draws of 4 floats are one draw of 8 (whole blocks).
  Generator d = make_cpu_generator(7), e = make_cpu_generator(7);
  Tensor first = ember::rand({4}, d), second = ember::rand({4}, d), both = ember::rand({8}, e);
  std::vector<uint8_t> joined = bits(first);
  const std::vector<uint8_t> tail = bits(second);
  joined.insert(joined.end(), tail.begin(), tail.end());
  EXPECT_EQ(joined, bits(both));
  // set_offset replays.
  philox(e).set_offset(0);
  EXPECT_EQ(bits(ember::rand({8}, e)), bits(both));
}

TEST(RandomGenerator, GeneratorArgumentVersusDefault) {
  manual_seed(2024);
  Tensor from_default = ember::randn({257});
  Generator g = make_cpu_generator(2024);
  Tensor from_arg = ember::randn({257}, g);
  EXPECT_EQ(bits(from_default), bits(from_arg));
  // Drawing from g leaves the default generator where it was.
  const uint64_t before = philox(default_generator(DeviceType::CPU)).offset();
  ember::rand({100}, g);
  ember::empty({10}).uniform_(0, 1, g);
  EXPECT_EQ(philox(default_generator(DeviceType::CPU)).offset(), before);
  // Copies of a Generator share the state.
  Generator h = g;
  ember::rand({4}, h);
  EXPECT_EQ(philox(g).offset(), philox(h).offset());
}

TEST(RandomGenerator, ConcurrentDrawsGetDisjointBlocks) {
  Generator g = make_cpu_generator(11);
  constexpr int kThreads = 4, kCalls = 200;
  std::vector<std::vector<std::vector<uint8_t>>> got(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) got[t].push_back(bits(ember::rand({4}, g)));
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(philox(g).offset(), uint64_t{4} * kThreads * kCalls);
  // Each call took one whole block: together, exactly the blocks of one long draw.
  Tensor all = ember::rand({4 * kThreads * kCalls}, make_cpu_generator(11));
  const std::vector<uint8_t> all_bits = bits(all);
  std::multiset<std::vector<uint8_t>> expected, seen;
  for (size_t i = 0; i < all_bits.size(); i += 16) {
    expected.insert(std::vector<uint8_t>(all_bits.begin() + i, all_bits.begin() + i + 16));
  }
  for (auto& per_thread : got) seen.insert(per_thread.begin(), per_thread.end());
  EXPECT_EQ(seen, expected);
}

TEST(RandomGenerator, RejectsForeignGenerators) {
  struct FakeCuda : GeneratorImpl {
    FakeCuda() : GeneratorImpl(Device(DeviceType::CUDA)) {}
    void set_current_seed(uint64_t) override {}
    uint64_t current_seed() const override { return 0; }
  };
  struct OtherCpu : GeneratorImpl {
    OtherCpu() : GeneratorImpl(Device(DeviceType::CPU)) {}
    void set_current_seed(uint64_t) override {}
    uint64_t current_seed() const override { return 0; }
  };
  Generator cuda(make_intrusive<FakeCuda>()), other(make_intrusive<OtherCpu>());
  expect_error<ValueError>([&] { ember::rand({2}, cuda); }, {"uniform_()", "'generator'", "cuda"});
  expect_error<ValueError>([&] { ember::randperm(3, other); }, {"randperm()", "Philox"});
}

// ---- stream layout: splits and strides --------------------------------------------------

// Each op, run on a fresh generator with one seed; returns the result's bits.
std::vector<std::pair<const char*, std::function<Tensor(Generator)>>> all_ops() {
  return {
      {"uniform_ float", [](Generator g) { return ember::rand({1001}, g); }},
      {"uniform_ double", [](Generator g) { return ember::rand({1001}, g, ScalarType::Double); }},
      {"uniform_ half", [](Generator g) { return ember::rand({1001}, g, ScalarType::Half); }},
      {"uniform_ complex", [](Generator g) { return ember::rand({333}, g, ScalarType::ComplexFloat); }},
      {"normal_ float", [](Generator g) { return ember::randn({1001}, g); }},
      {"normal_ double", [](Generator g) { return ember::randn({1001}, g, ScalarType::Double); }},
      {"normal_ bf16", [](Generator g) { return ember::randn({999}, g, ScalarType::BFloat16); }},
      {"normal_ complex", [](Generator g) { return ember::randn({333}, g, ScalarType::ComplexDouble); }},
      {"random_ int8", [](Generator g) { return ember::randint(-5, 100, {1001}, g, ScalarType::Char); }},
      {"random_ int64 wide", [](Generator g) { return ember::empty({1001}, ScalarType::Long).random_(g); }},
      {"bernoulli_", [](Generator g) { return ember::empty({1001}).bernoulli_(0.3, g); }},
      {"bernoulli", [](Generator g) { return ember::bernoulli(ember::rand({1001}, g), g); }},
      {"multinomial", [](Generator g) { return ember::multinomial(ember::rand({7, 13}, g), 50, true, g); }},
      {"multinomial no replacement",
       [](Generator g) { return ember::multinomial(ember::rand({7, 13}, g), 9, false, g); }},
      {"randperm", [](Generator g) { return ember::randperm(500, g); }},
  };
}

TEST(RandomLayout, SameBitsForAnyChunkingAndThreadCount) {
  ThreadingGuard guard;
  for (auto& [name, op] : all_ops()) {
    set_random_threading(0, 0);
    const std::vector<uint8_t> reference = bits(op(make_cpu_generator(77)));
    for (int64_t grain : {1, 2, 3, 7, 64, 1000}) {
      for (int threads : {1, 3, 4}) {
        set_random_threading(grain, threads);
        EXPECT_EQ(bits(op(make_cpu_generator(77))), reference)
            << name << " with grain " << grain << " and " << threads << " threads";
      }
    }
  }
}

TEST(RandomLayout, StridedViewGetsTheValuesOfAContiguousTensor) {
  // Non-contiguous outputs are filled in logical (row-major) order.
  struct Geometry {
    std::vector<int64_t> sizes, strides;
    int64_t offset, storage;
  };
  const Geometry geometries[] = {
      {{3, 4}, {1, 3}, 0, 12},             // transposed
      {{3, 4}, {10, 2}, 1, 40},            // sliced with steps and an offset
      {{2, 3, 5}, {1, 2, 6}, 0, 30},       // permuted
      {{5}, {-1}, 4, 5},                   // negative stride
  };
  using Fill = std::function<void(Tensor&, Generator)>;
  const std::pair<ScalarType, Fill> fills[] = {
      {ScalarType::Float, [](Tensor& t, Generator g) { t.uniform_(-1, 1, g); }},
      {ScalarType::Half, [](Tensor& t, Generator g) { t.uniform_(0, 4, g); }},
      {ScalarType::ComplexFloat, [](Tensor& t, Generator g) { t.uniform_(0, 1, g); }},
      {ScalarType::Double, [](Tensor& t, Generator g) { t.normal_(2, 3, g); }},
      {ScalarType::ComplexDouble, [](Tensor& t, Generator g) { t.normal_(0, 1, g); }},
      {ScalarType::Short, [](Tensor& t, Generator g) { t.random_(-100, 100, g); }},
      {ScalarType::Bool, [](Tensor& t, Generator g) { t.bernoulli_(0.5, g); }},
      {ScalarType::Float, [](Tensor& t, Generator g) { t.bernoulli_(ember::full({1}, 0.5), g); }},
  };
  for (const Geometry& geo : geometries) {
    for (const auto& [dtype, fill] : fills) {
      Tensor view = strided(geo.sizes, geo.strides, geo.offset, geo.storage, dtype);
      ASSERT_FALSE(view.is_contiguous());
      Tensor dense = ember::empty(geo.sizes, dtype);
      fill(view, make_cpu_generator(3));
      fill(dense, make_cpu_generator(3));
      EXPECT_EQ(bits(view), bits(dense)) << dtype << " " << IntArrayRef(geo.strides);
    }
  }
  // Elements outside the view are untouched.
  Tensor buffer = ember::empty({40});
  std::memset(buffer.data_ptr(), 0, 40 * sizeof(float));
  buffer.impl()->set_sizes_and_strides({3, 4}, {10, 2}, 1);
  buffer.uniform_(1, 2);
  buffer.impl()->set_sizes_and_strides({40}, {1}, 0);
  const std::vector<double> all = values(buffer);
  for (int64_t i = 0; i < 40; ++i) {
    const bool inside = i >= 1 && (i - 1) % 2 == 0 && (i - 1) % 10 < 8 && (i - 1) / 10 < 3;
    EXPECT_EQ(all[static_cast<size_t>(i)] != 0.0, inside) << i;
  }
}

TEST(RandomLayout, ZeroDimAndEmpty) {
  Generator g = make_cpu_generator(1);
  Tensor scalar = ember::rand({}, g);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(philox(g).offset(), 4u);
  Tensor empty = ember::randn({3, 0}, g);
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(philox(g).offset(), 4u);
  EXPECT_EQ(ember::randperm(0, g).numel(), 0);
  EXPECT_EQ(ember::multinomial(ember::ones({0, 3}), 2, false, g).sizes(), IntArrayRef({0, 2}));
}

// ---- distributions (fixed seeds; bounds are ~5 standard errors) --------------------------

TEST(RandomDistribution, UniformMomentsAndRangeEveryDtype) {
  constexpr int64_t n = 200000;
  const double from = -2, to = 3;
  for (ScalarType dtype : {ScalarType::Half, ScalarType::BFloat16, ScalarType::Float,
                           ScalarType::Double, ScalarType::ComplexFloat, ScalarType::ComplexDouble}) {
    Tensor t = ember::empty({n}, dtype).uniform_(from, to, make_cpu_generator(10));
    const std::vector<double> v = values(t);
    // U(a, b): mean (a + b) / 2, variance (b - a)^2 / 12 (numpy.random.uniform's doc).
    const double m = (from + to) / 2, var = (to - from) * (to - from) / 12;
    const double mu4 = std::pow(to - from, 4) / 80;
    // Draws keep the dtype's mantissa digits (11 for float16, 8 for bfloat16): allow for that.
    const ScalarType part = native::random_detail::real_component(dtype);
    const int digits = part == ScalarType::Half ? 11 : part == ScalarType::BFloat16 ? 8
                       : part == ScalarType::Float ? 24 : 53;
    const double grid = (to - from) * std::ldexp(1.0, -digits);
    EXPECT_NEAR(mean(v), m, 5 * std::sqrt(var / v.size()) + grid) << dtype;
    EXPECT_NEAR(variance(v), var, 5 * std::sqrt((mu4 - var * var) / v.size()) + 2 * grid) << dtype;
    EXPECT_GE(*std::min_element(v.begin(), v.end()), from) << dtype;
    EXPECT_LT(*std::max_element(v.begin(), v.end()), to) << dtype;
  }
  // The upper bound stays excluded where rounding could reach it.
  for (ScalarType dtype : kFloating) {
    const std::vector<double> v = values(ember::empty({20000}, dtype).uniform_(1, 2, make_cpu_generator(4)));
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 2.0) << dtype;
  }
  // from == to gives from.
  const std::vector<double> same = values(ember::empty({8}).uniform_(0.5, 0.5));
  EXPECT_TRUE(std::all_of(same.begin(), same.end(), [](double x) { return x == 0.5; }));
}

TEST(RandomDistribution, NormalMomentsEveryDtype) {
  constexpr int64_t n = 200000;
  const double mu = 1.5, sd = 2.0;
  for (ScalarType dtype : kFloating) {
    const std::vector<double> v = values(ember::empty({n}, dtype).normal_(mu, sd, make_cpu_generator(20)));
    const double tol16 = dtype == ScalarType::BFloat16 ? 0.02 : (dtype == ScalarType::Half ? 0.005 : 0);
    EXPECT_NEAR(mean(v), mu, 5 * sd / std::sqrt(n) + tol16) << dtype;
    // Var(s^2) = 2 sigma^4 / n for a normal sample.
    EXPECT_NEAR(variance(v), sd * sd, 5 * std::sqrt(2.0 / n) * sd * sd + 4 * tol16) << dtype;
    // Skewness 0, kurtosis 3 (standard errors sqrt(6/n), sqrt(24/n)).
    const double s2 = central_moment(v, 2);
    EXPECT_NEAR(central_moment(v, 3) / std::pow(s2, 1.5), 0.0, 5 * std::sqrt(6.0 / n)) << dtype;
    EXPECT_NEAR(central_moment(v, 4) / (s2 * s2), 3.0, 5 * std::sqrt(24.0 / n) + 10 * tol16) << dtype;
    // P(|x - mu| < sd) = erf(1 / sqrt 2).
    const double inside = static_cast<double>(std::count_if(v.begin(), v.end(), [&](double x) {
                            return std::abs(x - mu) < sd;
                          })) / n;
    const double p1 = std::erf(1 / std::sqrt(2.0));
    EXPECT_NEAR(inside, p1, 5 * std::sqrt(p1 * (1 - p1) / n) + tol16) << dtype;
  }
  // Complex, as torch: each part N(mean, std^2 / 2), independent.
  for (ScalarType dtype : {ScalarType::ComplexFloat, ScalarType::ComplexDouble}) {
    const std::vector<double> v = values(ember::empty({n}, dtype).normal_(mu, sd, make_cpu_generator(21)));
    std::vector<double> re, im;
    for (size_t i = 0; i < v.size(); i += 2) {
      re.push_back(v[i]);
      im.push_back(v[i + 1]);
    }
    const double part_var = sd * sd / 2;
    for (const auto* part : {&re, &im}) {
      EXPECT_NEAR(mean(*part), mu, 5 * std::sqrt(part_var / n)) << dtype;
      EXPECT_NEAR(variance(*part), part_var, 5 * std::sqrt(2.0 / n) * part_var) << dtype;
    }
    double cov = 0;
    const double mre = mean(re), mim = mean(im);
    for (size_t i = 0; i < re.size(); ++i) cov += (re[i] - mre) * (im[i] - mim);
    EXPECT_NEAR(cov / n, 0.0, 5 * part_var / std::sqrt(n)) << dtype;
  }
  // std == 0 gives the mean.
  const std::vector<double> flat = values(ember::empty({5}).normal_(3, 0));
  EXPECT_TRUE(std::all_of(flat.begin(), flat.end(), [](double x) { return x == 3; }));
}

TEST(RandomDistribution, BernoulliScalarAndTensorProbabilities) {
  constexpr int64_t n = 200000;
  for (ScalarType dtype : kReal) {
    const std::vector<double> v = values(ember::empty({n}, dtype).bernoulli_(0.3, make_cpu_generator(30)));
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x == 0 || x == 1; })) << dtype;
    EXPECT_NEAR(mean(v), 0.3, 5 * std::sqrt(0.3 * 0.7 / n)) << dtype;
  }
  const std::vector<double> zeros = values(ember::empty({100}).bernoulli_(0.0));
  const std::vector<double> ones = values(ember::empty({100}).bernoulli_(1.0));
  EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0.0), 100);
  EXPECT_EQ(std::count(ones.begin(), ones.end(), 1.0), 100);
  // A row of probabilities broadcast over many rows.
  Tensor p = ember::empty({4}, ScalarType::Double);
  const double probs[] = {0.0, 0.25, 0.9, 1.0};
  std::memcpy(p.data_ptr(), probs, sizeof(probs));
  for (ScalarType dtype : {ScalarType::Bool, ScalarType::Int, ScalarType::Half, ScalarType::Float}) {
    const std::vector<double> v =
        values(ember::empty({50000, 4}, dtype).bernoulli_(p, make_cpu_generator(31)));
    for (int j = 0; j < 4; ++j) {
      std::vector<double> col;
      for (size_t i = static_cast<size_t>(j); i < v.size(); i += 4) col.push_back(v[i]);
      const double q = probs[j];
      EXPECT_NEAR(mean(col), q, 5 * std::sqrt(q * (1 - q) / col.size()) + 1e-12) << dtype << " " << j;
    }
  }
  // bernoulli(probabilities): result in the probabilities' dtype.
  for (ScalarType dtype : kFloating) {
    Tensor probs_t = ember::full({100000}, 0.7, dtype);
    Tensor drawn = ember::bernoulli(probs_t, make_cpu_generator(32));
    EXPECT_EQ(drawn.dtype(), dtype);
    EXPECT_NEAR(mean(values(drawn)), 0.7, 5 * std::sqrt(0.21 / 100000) + 1e-3) << dtype;
    EXPECT_NEAR(mean(values(ember::bernoulli(probs_t, 0.2, make_cpu_generator(33)))), 0.2,
                5 * std::sqrt(0.16 / 100000)) << dtype;
  }
  // self may be its own probabilities.
  Tensor self_p = ember::full({1000}, 1.0);
  self_p.bernoulli_(self_p);
  EXPECT_EQ(mean(values(self_p)), 1.0);
}

TEST(RandomDistribution, RandintAndRandomChiSquare) {
  constexpr int64_t n = 100000;
  // randint(low, high): each of the high - low values equally likely.
  {
    const std::vector<int64_t> v = int_values(ember::randint(-3, 7, {n}, make_cpu_generator(40)));
    std::vector<double> counts(10, 0), expected(10, n / 10.0);
    for (int64_t x : v) {
      ASSERT_TRUE(x >= -3 && x < 7) << x;
      counts[static_cast<size_t>(x + 3)] += 1;
    }
    EXPECT_LT(chi_square(counts, expected), chi_square_critical(9));
  }
  // random_() over the whole range of small types: [0, max] ([0, 1] for bool).
  const std::pair<ScalarType, int64_t> full_ranges[] = {
      {ScalarType::Bool, 2}, {ScalarType::Byte, 256}, {ScalarType::Char, 128}};
  for (const auto& [dtype, k] : full_ranges) {
    const std::vector<int64_t> v = int_values(ember::empty({n}, dtype).random_(make_cpu_generator(41)));
    std::vector<double> counts(static_cast<size_t>(k), 0), expected(static_cast<size_t>(k), double(n) / k);
    for (int64_t x : v) {
      ASSERT_TRUE(x >= 0 && x < k) << dtype << " " << x;
      counts[static_cast<size_t>(x)] += 1;
    }
    EXPECT_LT(chi_square(counts, expected), chi_square_critical(double(k - 1))) << dtype;
  }
  // random_() on the wide types: [0, max]; mean max / 2.
  const std::pair<ScalarType, double> wide[] = {{ScalarType::Short, 32767.0},
                                                {ScalarType::Int, 2147483647.0},
                                                {ScalarType::Long, 9223372036854775807.0},
                                                {ScalarType::Half, 2048.0},
                                                {ScalarType::BFloat16, 256.0},
                                                {ScalarType::Float, 16777216.0},
                                                {ScalarType::Double, 9007199254740992.0}};
  for (const auto& [dtype, max] : wide) {
    const std::vector<double> v = values(ember::empty({n}, dtype).random_(make_cpu_generator(42)));
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0) << dtype;
    EXPECT_LE(*std::max_element(v.begin(), v.end()), max) << dtype;
    EXPECT_NEAR(mean(v) / max, 0.5, 5 * std::sqrt(1.0 / 12 / n)) << dtype;
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x == std::floor(x); })) << dtype;
  }
  // random_(from, None): [from, max]; random_(to): [0, to); the full int64 range.
  const std::vector<int64_t> upper = int_values(ember::empty({n}, ScalarType::Char).random_(-5, std::optional<int64_t>()));
  EXPECT_EQ(*std::min_element(upper.begin(), upper.end()), -5);
  EXPECT_EQ(*std::max_element(upper.begin(), upper.end()), 127);
  const std::vector<int64_t> below = int_values(ember::empty({n}, ScalarType::Float).random_(3));
  EXPECT_EQ(std::set<int64_t>(below.begin(), below.end()), (std::set<int64_t>{0, 1, 2}));
  const std::vector<int64_t> all64 = int_values(
      ember::empty({1000}, ScalarType::Long).random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>()));
  EXPECT_GT(std::count_if(all64.begin(), all64.end(), [](int64_t x) { return x < 0; }), 400);
  EXPECT_GT(std::count_if(all64.begin(), all64.end(), [](int64_t x) { return x > 0; }), 400);
  // Ranges wider than 2^32 reach their top.
  const std::vector<int64_t> big =
      int_values(ember::randint(0, int64_t{1} << 40, {n}, make_cpu_generator(43)));
  EXPECT_GT(*std::max_element(big.begin(), big.end()), int64_t{1} << 39);
}

TEST(RandomDistribution, MultinomialWithReplacementMatchesWeights) {
  constexpr int64_t n = 100000;
  for (ScalarType dtype : kFloating) {
    Tensor w = ember::empty({5}, ScalarType::Double);
    const double weights[] = {1, 2, 0, 3, 4};  // unnormalised, one zero
    std::memcpy(w.data_ptr(), weights, sizeof(weights));
    Tensor drawn = ember::multinomial(w.to(dtype), n, true, make_cpu_generator(50));
    EXPECT_EQ(drawn.dtype(), ScalarType::Long);
    EXPECT_EQ(drawn.sizes(), IntArrayRef({n}));
    std::vector<double> counts(5, 0), expected;
    for (int64_t x : int_values(drawn)) counts[static_cast<size_t>(x)] += 1;
    EXPECT_EQ(counts[2], 0) << dtype;
    for (double wt : {1, 2, 3, 4}) expected.push_back(n * wt / 10);
    counts.erase(counts.begin() + 2);
    EXPECT_LT(chi_square(counts, expected), chi_square_critical(3)) << dtype;
  }
  // 2-D: each row uses its own weights.
  Tensor w2 = ember::zeros({3, 4});
  float* p = w2.data_ptr_as<float>();
  p[0 * 4 + 1] = 1;                 // row 0: always 1
  p[1 * 4 + 0] = p[1 * 4 + 3] = 1;  // row 1: 0 or 3
  p[2 * 4 + 2] = 5;                 // row 2: always 2
  const std::vector<int64_t> v = int_values(ember::multinomial(w2, 1000, true, make_cpu_generator(51)));
  for (int64_t s = 0; s < 1000; ++s) {
    EXPECT_EQ(v[static_cast<size_t>(s)], 1);
    EXPECT_TRUE(v[static_cast<size_t>(1000 + s)] == 0 || v[static_cast<size_t>(1000 + s)] == 3);
    EXPECT_EQ(v[static_cast<size_t>(2000 + s)], 2);
  }
}

TEST(RandomDistribution, MultinomialWithoutReplacementDrawOrder) {
  // First draw ~ p; second draw: P(j) = sum_{i != j} p_i p_j / (1 - p_i).
  const double pw[] = {0.1, 0.2, 0.3, 0.4};
  constexpr int64_t rows = 40000;
  Tensor w = ember::empty({rows, 4}, ScalarType::Double);
  for (int64_t r = 0; r < rows; ++r) std::memcpy(w.data_ptr_as<double>() + r * 4, pw, sizeof(pw));
  const std::vector<int64_t> v = int_values(ember::multinomial(w, 2, false, make_cpu_generator(60)));
  std::vector<double> first(4, 0), second(4, 0), e_first, e_second;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t a = v[static_cast<size_t>(2 * r)], b = v[static_cast<size_t>(2 * r + 1)];
    ASSERT_NE(a, b);
    first[static_cast<size_t>(a)] += 1;
    second[static_cast<size_t>(b)] += 1;
  }
  for (int j = 0; j < 4; ++j) {
    e_first.push_back(rows * pw[j]);
    double q = 0;
    for (int i = 0; i < 4; ++i) {
      if (i != j) q += pw[i] * pw[j] / (1 - pw[i]);
    }
    e_second.push_back(rows * q);
  }
  EXPECT_LT(chi_square(first, e_first), chi_square_critical(3));
  EXPECT_LT(chi_square(second, e_second), chi_square_critical(3));
  // All categories: a permutation; zero weights come last, in index order.
  Tensor z = ember::empty({6}, ScalarType::Float);
  const float zw[] = {0, 3, 0, 1, 2, 0};
  std::memcpy(z.data_ptr(), zw, sizeof(zw));
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::vector<int64_t> perm = int_values(ember::multinomial(z, 6, false, make_cpu_generator(seed)));
    EXPECT_EQ(std::set<int64_t>(perm.begin(), perm.end()).size(), 6u);
    EXPECT_EQ(std::vector<int64_t>(perm.begin() + 3, perm.end()), (std::vector<int64_t>{0, 2, 5}));
  }
}

TEST(RandomDistribution, RandpermIsAUniformPermutation) {
  for (int64_t n : {0, 1, 2, 10, 1000}) {
    std::vector<int64_t> v = int_values(ember::randperm(n, make_cpu_generator(70)));
    std::sort(v.begin(), v.end());
    std::vector<int64_t> iota(static_cast<size_t>(n));
    std::iota(iota.begin(), iota.end(), int64_t{0});
    EXPECT_EQ(v, iota) << n;
  }
  // All 6 orders of 3 items equally likely.
  Generator g = make_cpu_generator(71);
  std::map<std::vector<int64_t>, double> seen;
  constexpr int kDraws = 30000;
  for (int i = 0; i < kDraws; ++i) seen[int_values(ember::randperm(3, g))] += 1;
  ASSERT_EQ(seen.size(), 6u);
  std::vector<double> counts, expected(6, kDraws / 6.0);
  for (auto& [perm, c] : seen) counts.push_back(c);
  EXPECT_LT(chi_square(counts, expected), chi_square_critical(5));
}

// ---- dtypes -----------------------------------------------------------------------------

TEST(RandomDtypes, FactoriesDefaultsAndEveryDtype) {
  EXPECT_EQ(ember::rand({2}).dtype(), ScalarType::Float);
  EXPECT_EQ(ember::randn({2}).dtype(), ScalarType::Float);
  EXPECT_EQ(ember::randint(5, {2}).dtype(), ScalarType::Long);
  EXPECT_EQ(ember::randint(1, 5, {2}).dtype(), ScalarType::Long);
  EXPECT_EQ(ember::randperm(4).dtype(), ScalarType::Long);
  for (ScalarType dtype : {ScalarType::Half, ScalarType::BFloat16, ScalarType::Float,
                           ScalarType::Double, ScalarType::ComplexFloat, ScalarType::ComplexDouble}) {
    Tensor u = ember::rand({3, 2}, dtype);
    Tensor z = ember::randn({3, 2}, dtype);
    EXPECT_EQ(u.dtype(), dtype);
    EXPECT_EQ(z.dtype(), dtype);
    EXPECT_EQ(u.sizes(), IntArrayRef({3, 2}));
    EXPECT_EQ(ember::rand_like(u).dtype(), dtype);
    EXPECT_EQ(ember::randn_like(z, make_cpu_generator(1)).sizes(), IntArrayRef({3, 2}));
  }
  for (ScalarType dtype : kReal) {
    const int64_t high = dtype == ScalarType::Bool ? 2 : 100;
    const std::vector<double> v = values(ember::randint(0, high, {50}, dtype));
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [&](double x) { return x >= 0 && x < high; })) << dtype;
    Tensor like = ember::randint_like(ember::empty({4}, dtype), high);
    EXPECT_EQ(like.dtype(), dtype);
    EXPECT_EQ(ember::randint_like(like, 0, high, make_cpu_generator(2)).dtype(), dtype);
  }
  const std::pair<ScalarType, int64_t> perms[] = {
      {ScalarType::Byte, 256},  {ScalarType::Char, 128},  {ScalarType::Short, 1000},
      {ScalarType::Int, 1000},  {ScalarType::Long, 1000}, {ScalarType::Half, 2049},
      {ScalarType::BFloat16, 257}, {ScalarType::Float, 1000}, {ScalarType::Double, 1000}};
  for (const auto& [dtype, n] : perms) {
    Tensor p = ember::randperm(n, dtype);
    EXPECT_EQ(p.dtype(), dtype);
    std::vector<int64_t> v = int_values(p);
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v.front(), 0);
    EXPECT_EQ(v.back(), n - 1) << dtype;
    EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end()) << dtype;
  }
}

// ---- Meta -------------------------------------------------------------------------------

TEST(RandomMeta, ShapesAndDtypesWithoutData) {
  const TensorOptions meta = TensorOptions(kMeta);
  Tensor r = ember::rand({2, 3}, meta);
  EXPECT_EQ(r.device(), kMeta);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(r.dtype(), ScalarType::Float);
  EXPECT_EQ(ember::randn({4}, meta.dtype(ScalarType::Double)).dtype(), ScalarType::Double);
  EXPECT_EQ(ember::randint(3, 9, {5}, meta).dtype(), ScalarType::Long);
  EXPECT_EQ(ember::randperm(7, meta).sizes(), IntArrayRef({7}));
  EXPECT_EQ(ember::rand_like(r).device(), kMeta);
  EXPECT_EQ(ember::randn_like(r).sizes(), IntArrayRef({2, 3}));
  Tensor m = ember::multinomial(ember::empty({4, 10}, meta), 6, false);
  EXPECT_EQ(m.device(), kMeta);
  EXPECT_EQ(m.sizes(), IntArrayRef({4, 6}));
  EXPECT_EQ(m.dtype(), ScalarType::Long);
  EXPECT_EQ(ember::multinomial(ember::empty({10}, meta), 20, true).sizes(), IntArrayRef({20}));
  EXPECT_EQ(ember::bernoulli(r).device(), kMeta);
  Tensor x = ember::empty({3}, meta.dtype(ScalarType::Int));
  EXPECT_TRUE(x.random_(0, 5).is_same(x));
  EXPECT_TRUE(x.bernoulli_(0.5).is_same(x));
  // The generator is not touched by Meta kernels.
  Generator g = make_cpu_generator(1);
  ember::rand({100}, g, meta);
  EXPECT_EQ(philox(g).offset(), 0u);
  // Meta kernels reject what the CPU kernels reject.
  expect_error<ValueError>([&] { ember::empty({2}, meta).uniform_(1, 0); }, {"uniform_()", "'from'"});
  expect_error<TypeError>([&] { x.normal_(); }, {"normal_()", "int32"});
  expect_error<ValueError>([&] { x.random_(5, 5); }, {"random_()", "'from'"});
  expect_error<ValueError>([&] { x.bernoulli_(2.0); }, {"bernoulli_()", "'p'"});
  expect_error<ValueError>([&] { ember::multinomial(ember::empty({3}, meta), 4, false); },
                           {"multinomial()", "'num_samples'"});
  expect_error<ValueError>([&] { ember::randperm(-1, meta); }, {"randperm()", "'n'"});
}

// ---- bad inputs: the right error, nothing written, nothing drawn ---------------------------

TEST(RandomErrors, BadArgumentsRaiseBeforeWriting) {
  Generator g = make_cpu_generator(9);
  Tensor f = ember::full({4}, 7.0);
  Tensor i = ember::full({4}, 7, ScalarType::Int);
  Tensor c = ember::empty({4}, ScalarType::ComplexFloat);
  Tensor u8 = ember::full({4}, 7, ScalarType::Byte);
  Tensor h = ember::full({4}, 7.0, ScalarType::Half);
  auto untouched = [&] {
    for (const Tensor* t : {&f, &i, &u8, &h}) {
      const std::vector<double> v = values(*t);
      EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x == 7; })) << t->dtype();
    }
    EXPECT_EQ(philox(g).offset(), 0u);
  };
  expect_error<ValueError>([&] { f.uniform_(2, 1, g); }, {"uniform_()", "'from'", "'to'"});
  expect_error<ValueError>([&] { f.uniform_(0, INFINITY, g); }, {"uniform_()", "finite"});
  expect_error<ValueError>([&] { f.uniform_(NAN, 1, g); }, {"uniform_()"});
  expect_error<ValueError>([&] { h.uniform_(0, 1e5, g); }, {"uniform_()", "float16"});
  expect_error<ValueError>([&] { ember::empty({4}, ScalarType::Double).uniform_(-1e308, 1e308, g); },
                           {"uniform_()", "'to' - 'from'"});
  expect_error<TypeError>([&] { i.uniform_(0, 1, g); }, {"uniform_()", "int32"});
  expect_error<ValueError>([&] { f.normal_(0, -1, g); }, {"normal_()", "'std'"});
  expect_error<ValueError>([&] { f.normal_(0, NAN, g); }, {"normal_()", "'std'"});
  expect_error<TypeError>([&] { u8.normal_(0, 1, g); }, {"normal_()", "uint8"});
  expect_error<ValueError>([&] { f.random_(5, 3, g); }, {"random_()", "'from'", "'to'"});
  expect_error<ValueError>([&] { u8.random_(0, 300, g); }, {"random_()", "'to' - 1", "uint8"});
  expect_error<ValueError>([&] { u8.random_(-1, 3, g); }, {"random_()", "'from'", "uint8"});
  expect_error<ValueError>([&] { u8.random_(0, g); }, {"random_()", "'from'"});
  expect_error<ValueError>([&] { h.random_(0, 5000, g); }, {"random_()", "float16"});
  expect_error<TypeError>([&] { c.random_(g); }, {"random_()", "complex64"});
  expect_error<ValueError>([&] { f.bernoulli_(1.5, g); }, {"bernoulli_()", "'p'", "1.5"});
  expect_error<ValueError>([&] { f.bernoulli_(-0.1, g); }, {"bernoulli_()", "'p'"});
  expect_error<ValueError>([&] { f.bernoulli_(NAN, g); }, {"bernoulli_()", "'p'"});
  expect_error<TypeError>([&] { c.bernoulli_(0.5, g); }, {"bernoulli_()", "complex64"});
  Tensor bad_p = ember::full({4}, 0.5);
  bad_p.data_ptr_as<float>()[2] = 2.0f;
  expect_error<ValueError>([&] { f.bernoulli_(bad_p, g); }, {"bernoulli_()", "'p'", "2"});
  expect_error<TypeError>([&] { f.bernoulli_(i, g); }, {"bernoulli_()", "'p'", "int32"});
  expect_error<ValueError>([&] { f.bernoulli_(ember::full({3}, 0.5), g); }, {"bernoulli_()", "broadcast"});
  expect_error<TypeError>([&] { ember::bernoulli(i, g); }, {"bernoulli()", "int32"});
  // Elements sharing memory (an expanded tensor).
  Tensor expanded = strided({3, 4}, {0, 1}, 0, 4, ScalarType::Float);
  expect_error<ValueError>([&] { expanded.uniform_(0, 1, g); }, {"uniform_()", "stride 0"});
  expect_error<ValueError>([&] { expanded.normal_(0, 1, g); }, {"normal_()", "stride 0"});
  untouched();
}

TEST(RandomErrors, BadFactoryAndSamplingArguments) {
  Generator g = make_cpu_generator(9);
  expect_error<TypeError>([&] { ember::rand({2}, ScalarType::Long); }, {"rand()", "int64"});
  expect_error<TypeError>([&] { ember::randn({2}, g, ScalarType::Bool); }, {"randn()", "bool"});
  expect_error<TypeError>([&] { ember::rand_like(ember::empty({2}, ScalarType::Int)); },
                          {"rand_like()", "int32"});
  expect_error<ValueError>([&] { ember::randint(5, 5, {3}, g); }, {"randint()", "'low'", "'high'"});
  expect_error<ValueError>([&] { ember::randint(0, {3}, g); }, {"randint()"});
  expect_error<ValueError>([&] { ember::randint(0, 300, {3}, ScalarType::Byte); }, {"random_()", "uint8"});
  expect_error<ValueError>([&] { ember::randint(2, {-1}); }, {"'size'"});
  expect_error<ValueError>([&] { ember::randperm(-1, g); }, {"randperm()", "'n'", "-1"});
  expect_error<TypeError>([&] { ember::randperm(3, g, ScalarType::Bool); }, {"randperm()", "bool"});
  expect_error<TypeError>([&] { ember::randperm(3, g, ScalarType::ComplexFloat); }, {"randperm()"});
  expect_error<ValueError>([&] { ember::randperm(3000, g, ScalarType::Half); }, {"randperm()", "2049"});
  expect_error<ValueError>([&] { ember::randperm(300, g, ScalarType::Byte); }, {"randperm()", "256"});
  Tensor w = ember::full({3}, 1.0);
  expect_error<ValueError>([&] { ember::multinomial(ember::ones({2, 2, 2}), 1, false, g); },
                           {"multinomial()", "1-D or 2-D", "3-D"});
  expect_error<TypeError>([&] { ember::multinomial(ember::ones({3}, ScalarType::Long), 1, false, g); },
                          {"multinomial()", "int64"});
  expect_error<ValueError>([&] { ember::multinomial(w, 0, true, g); }, {"multinomial()", "'num_samples'"});
  expect_error<ValueError>([&] { ember::multinomial(w, 4, false, g); },
                           {"multinomial()", "'num_samples'", "without replacement"});
  for (float bad : {-1.0f, NAN, INFINITY}) {
    Tensor wb = ember::full({3}, 1.0);
    wb.data_ptr_as<float>()[1] = bad;
    expect_error<ValueError>([&] { ember::multinomial(wb, 1, true, g); },
                             {"multinomial()", "non-negative"});
  }
  expect_error<ValueError>([&] { ember::multinomial(ember::zeros({2, 3}), 1, true, g); },
                           {"multinomial()", "positive sum", "row 0"});
  EXPECT_EQ(philox(g).offset(), 0u);
}

}  // namespace
}  // namespace ember

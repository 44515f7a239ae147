// The `stream` reference: this machine's memory bandwidth, measured in the same run as the
// elementwise cases so they can report the fraction of it they reach.
//   ember_stream [--n ELEMENTS] [--threads T] [--reps R]
// Two kernels of McCalpin's STREAM on float32 arrays, split into T contiguous chunks, one
// std::thread each: copy (c = b, 8 bytes per element) and triad (a = b + s * c, 12 bytes
// per element). Bytes are counted as STREAM counts them (each array once; the
// write-allocate read of the destination is not counted), which is how benchmarks/run.py
// counts the bytes of an elementwise case, so the two compare like for like. Prints one
// JSON object: per kernel the median and best seconds over R repetitions and the
// bandwidth in GB/s (1e9 bytes) of each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

struct Options {
  long n = 64L << 20;  // 64M float32 = 256 MiB per array, well past the last-level cache
  int threads = 1;
  int reps = 10;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    long v = std::strtol(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--n") == 0) o.n = v;
    else if (std::strcmp(argv[i], "--threads") == 0) o.threads = static_cast<int>(v);
    else if (std::strcmp(argv[i], "--reps") == 0) o.reps = static_cast<int>(v);
    else return false;
  }
  return argc % 2 == 1 && o.n > 0 && o.threads > 0 && o.reps > 0;
}

// Runs body(begin, end) on `threads` contiguous chunks of [0, n) and returns the seconds.
template <typename F>
double run_split(long n, int threads, F body) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  long chunk = (n + threads - 1) / threads;
  for (int t = 1; t < threads; ++t) {
    long b = std::min(n, t * chunk), e = std::min(n, (t + 1) * chunk);
    pool.emplace_back([=] { body(b, e); });
  }
  body(0, std::min(n, chunk));
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Stats {
  double median_s, best_s;
};

Stats stats(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  size_t m = t.size() / 2;
  double median = t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
  return {median, t.front()};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: %s [--n ELEMENTS] [--threads T] [--reps R]\n", argv[0]);
    return 2;
  }
  // 64-byte aligned, uninitialised: the first touch happens below, in the threads that
  // will use each chunk.
  auto alloc = [&] {
    return std::unique_ptr<float[], decltype(&std::free)>(
        static_cast<float*>(std::aligned_alloc(64, ((o.n * sizeof(float) + 63) / 64) * 64)),
        &std::free);
  };
  auto a = alloc(), b = alloc(), c = alloc();
  if (!a || !b || !c) {
    std::fprintf(stderr, "ember_stream: cannot allocate 3 x %ld floats\n", o.n);
    return 1;
  }
  float* __restrict pa = a.get();
  float* __restrict pb = b.get();
  float* __restrict pc = c.get();
  run_split(o.n, o.threads, [&](long lo, long hi) {
    for (long i = lo; i < hi; ++i) pa[i] = 1.0f, pb[i] = 2.0f, pc[i] = 0.0f;
  });

  const float s = 3.0f;
  std::vector<double> copy_t, triad_t;
  // One untimed round of each kernel first: page tables and TLBs warm, threads started.
  for (int r = -1; r < o.reps; ++r) {
    double tc = run_split(o.n, o.threads, [&](long lo, long hi) {
      for (long i = lo; i < hi; ++i) pc[i] = pb[i];
    });
    double tt = run_split(o.n, o.threads, [&](long lo, long hi) {
      for (long i = lo; i < hi; ++i) pa[i] = pb[i] + s * pc[i];
    });
    if (r >= 0) copy_t.push_back(tc), triad_t.push_back(tt);
  }
  // A checksum the compiler cannot drop: c = b = 2, so a = 2 + 3 * 2 = 8 everywhere.
  double sum = 0;
  for (long i = 0; i < o.n; i += 4096) sum += pa[i];
  if (sum != 8.0 * ((o.n + 4095) / 4096)) {
    std::fprintf(stderr, "ember_stream: wrong result (checksum %g)\n", sum);
    return 1;
  }

  Stats cs = stats(copy_t), ts = stats(triad_t);
  double copy_bytes = 2.0 * sizeof(float) * o.n, triad_bytes = 3.0 * sizeof(float) * o.n;
  std::printf(
      "{\"n\": %ld, \"threads\": %d, \"reps\": %d,\n"
      " \"copy\": {\"bytes\": %.0f, \"median_s\": %.9g, \"best_s\": %.9g, \"GBps\": %.4g, "
      "\"best_GBps\": %.4g},\n"
      " \"triad\": {\"bytes\": %.0f, \"median_s\": %.9g, \"best_s\": %.9g, \"GBps\": %.4g, "
      "\"best_GBps\": %.4g}}\n",
      o.n, o.threads, o.reps, copy_bytes, cs.median_s, cs.best_s, copy_bytes / cs.median_s / 1e9,
      copy_bytes / cs.best_s / 1e9, triad_bytes, ts.median_s, ts.best_s,
      triad_bytes / ts.median_s / 1e9, triad_bytes / ts.best_s / 1e9);
  return 0;
}

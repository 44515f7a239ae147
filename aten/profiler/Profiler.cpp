// The operator profiler (see Profiler.h): a boxed fallback at DispatchKey::Profiler.
#include "aten/profiler/Profiler.h"

#include <atomic>
#include <chrono>
#include <mutex>

#include "c10/core/LocalDispatchKeySet.h"
#include "c10/dispatch/Library.h"
#include "c10/dispatch/OperatorHandle.h"
#include "c10/util/Exception.h"

namespace ember::profiler {
namespace {

struct Session {
  std::mutex mutex;
  std::atomic<bool> on{false};
  Options options;
  std::chrono::steady_clock::time_point origin;
  std::vector<Event> events;
  std::atomic<uint64_t> next_thread{0};
  uint64_t generation = 0;  // bumps per session, so threads renumber
};

Session& session() {
  static Session s;
  return s;
}

struct ThreadState {
  int32_t depth = 0;
  uint64_t id = 0;
  uint64_t generation = ~uint64_t{0};
};
thread_local ThreadState tls_state;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - session().origin).count();
}

uint64_t thread_id() {
  Session& s = session();
  if (tls_state.generation != s.generation) {
    tls_state.generation = s.generation;
    tls_state.id = s.next_thread.fetch_add(1);
  }
  return tls_state.id;
}

void record(Event e) {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.on.load(std::memory_order_relaxed)) s.events.push_back(std::move(e));
}

std::vector<std::vector<int64_t>> shapes_of(const Stack& stack, size_t first) {
  std::vector<std::vector<int64_t>> out;
  for (size_t i = first; i < stack.size(); ++i) {
    const IValue& v = stack[i];
    if (v.is_tensor() && v.to_tensor().defined()) out.push_back(v.to_tensor().sizes().vec());
    else out.emplace_back();
  }
  return out;
}

// Times the call, then runs it below the Profiler key. An exception still ends the event
// (the op's time until it threw) and passes through unchanged.
void profile_op(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  Session& s = session();
  if (!s.on.load(std::memory_order_relaxed)) {
    op.redispatch_boxed(keys.below(DispatchKey::Profiler), stack);
    return;
  }
  Event e;
  e.name = op.name().str();
  if (s.options.record_shapes) {
    const size_t n = op.schema().arguments.size();
    e.shapes = shapes_of(*stack, stack->size() >= n ? stack->size() - n : 0);
  }
  e.thread = thread_id();
  e.depth = tls_state.depth++;
  e.start_ns = now_ns();
  struct DepthGuard {
    ~DepthGuard() { --tls_state.depth; }
  } guard;
  try {
    op.redispatch_boxed(keys.below(DispatchKey::Profiler), stack);
  } catch (...) {
    e.end_ns = now_ns();
    record(std::move(e));
    throw;
  }
  e.end_ns = now_ns();
  record(std::move(e));
}

}  // namespace

void enable(const Options& options) {
  Session& s = session();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    EMBER_CHECK(!s.on.load(), "profiler: a profiling session is already running; end it "
                "before starting another");
    s.options = options;
    s.events.clear();
    s.origin = std::chrono::steady_clock::now();
    s.next_thread = 0;
    ++s.generation;
    s.on = true;
  }
  auto tls = local_dispatch_key_set();
  set_local_dispatch_key_set({tls.included | DispatchKeySet(DispatchKey::Profiler), tls.excluded});
}

std::vector<Event> disable() {
  Session& s = session();
  auto tls = local_dispatch_key_set();
  set_local_dispatch_key_set({tls.included - DispatchKeySet(DispatchKey::Profiler), tls.excluded});
  std::lock_guard<std::mutex> lock(s.mutex);
  EMBER_CHECK(s.on.load(), "profiler: no profiling session is running");
  s.on = false;
  return std::move(s.events);
}

bool is_enabled() { return session().on.load(); }

RecordFunction::RecordFunction(std::string name) : name_(std::move(name)) {
  if (!session().on.load(std::memory_order_relaxed)) return;
  depth_ = tls_state.depth++;
  start_ns_ = now_ns();
}

RecordFunction::~RecordFunction() {
  if (start_ns_ < 0) return;
  --tls_state.depth;
  Event e;
  e.name = std::move(name_);
  e.start_ns = start_ns_;
  e.end_ns = now_ns();
  e.thread = thread_id();
  e.depth = depth_;
  e.user_range = true;
  record(std::move(e));
}

}  // namespace ember::profiler

EMBER_LIBRARY_IMPL(_, Profiler, m) {
  m.fallback(ember::CppFunction::boxed(&ember::profiler::profile_op));
}

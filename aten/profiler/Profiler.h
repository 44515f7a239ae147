#pragma once
/// The operator profiler: while it is on, a boxed fallback at the Profiler dispatch key
/// times every operator call on the profiling thread (and user ranges, RecordFunction),
/// then redispatches below itself. Off, the key is absent from every key set: no cost.

#include <cstdint>
#include <string>
#include <vector>

#include "c10/macros/Export.h"

namespace ember::profiler {

/// One timed call: an operator ("aten::add") or a user range.
struct Event {
  std::string name;
  int64_t start_ns = 0;  // steady clock, since the session started
  int64_t end_ns = 0;
  uint64_t thread = 0;   // a small id per thread, in order of first event
  int32_t depth = 0;     // calls open on this thread when this one began
  bool user_range = false;
  std::vector<std::vector<int64_t>> shapes;  // per argument (empty for non-tensors)
};

struct Options {
  bool record_shapes = false;
};

/// Starts a session on the calling thread (Profiler key included there). Throws if one
/// is running.
EMBER_API void enable(const Options& options);
/// Ends the session and returns its events in order of their end.
EMBER_API std::vector<Event> disable();
/// Whether a session is running.
EMBER_API bool is_enabled();

/// A user range: timed from construction to destruction when a session is running on
/// this thread (torch.profiler.record_function).
class EMBER_API RecordFunction {
 public:
  explicit RecordFunction(std::string name);
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;
  ~RecordFunction();

 private:
  std::string name_;
  int64_t start_ns_ = -1;
  int32_t depth_ = 0;
};

}  // namespace ember::profiler

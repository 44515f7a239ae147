#pragma once
/// The tracer: while a trace runs on a thread, the Tracer dispatch key is in that thread's
/// included set and a boxed fallback at it records every operator call, by schema, into a
/// Graph (Graph.h), then runs the call below itself (excluding its own key, so the ops a
/// kernel calls are not recorded twice). Off, the key is absent from every key set.
///
/// Note [Data-reading conversions]: a trace records which ops ran, not the values that
/// chose them. So a call that hands a traced tensor's value to the program (item(),
/// bool(t), int(t), float(t), __index__, tolist(), numpy()) would bake that value into
/// the graph; here it is an error naming the conversion and the source line, raised
/// before the value is read. Use ember.cond for a data-dependent branch.

#include <string>
#include <utility>
#include <vector>

#include "aten/tracing/Graph.h"
#include "c10/macros/Export.h"

namespace ember::jit {

/// Starts a trace on this thread; `inputs` become the graph's inputs, in order, with their
/// names. Throws if a trace is already running on this thread, or an input repeats.
EMBER_API void begin_trace(const std::vector<std::pair<std::string, Tensor>>& inputs);
/// Ends this thread's trace; `outputs` are the traced function's results, each a graph
/// input or a value an op produced (else an error naming its position).
EMBER_API Graph end_trace(const std::vector<Tensor>& outputs);
/// Drops this thread's trace, if any (after the traced function raised).
EMBER_API void abort_trace();
/// Whether a trace runs on this thread.
EMBER_API bool is_tracing();
/// Note [Data-reading conversions]: throws when a trace runs and t is one of its values.
/// `what` names the conversion ("tolist()").
EMBER_API void check_data_read(const Tensor& t, const char* what);

/// Where the current op is called from ("model.py:12"), as the embedding language knows
/// it: the Python module sets a hook that reads the innermost frame outside the ember
/// package. Null (the default) records no source.
using SourceHook = std::string (*)();
EMBER_API void set_source_hook(SourceHook hook);

}  // namespace ember::jit

#pragma once
/// Graph passes: each a small function that rewrites a Graph (Graph.h) in place and returns
/// how many nodes it removed or replaced. None changes what the graph computes.
///
/// Note [Mutation barrier]: a value written by an in-place or out= op (an argument
/// annotated `Tensor(a!)`), and every value that may alias it (views and the written op's
/// results, by the schemas' alias sets), is left alone by all passes: it is never folded,
/// merged, fused or bypassed, and the nodes that write are never pruned. Random ops (a
/// Generator argument, dropout, rand*) are never folded, merged or pruned, so the random
/// stream a run draws is the eager one.

#include <string>
#include <vector>

#include "aten/tracing/Graph.h"
#include "c10/macros/Export.h"

namespace ember::jit {

/// Removes the nodes no output needs (keeping writers and random ops).
EMBER_API int prune(Graph& graph);
/// Merges nodes that call the same op on the same arguments.
EMBER_API int eliminate_common_subexpressions(Graph& graph);
/// Evaluates nodes whose tensor arguments are all constants (none requiring grad) and
/// makes their results constants; results over `max_elements` stay nodes.
EMBER_API int fold_constants(Graph& graph, int64_t max_elements = int64_t{1} << 20);
/// Bypasses ops that return their input unchanged: `x * 1`, `x / 1`, `x + 0`, `x - 0`,
/// a transpose of a transpose, `contiguous` of a contiguous value, a reshape/view/expand to
/// its own shape, `to` its own dtype.
EMBER_API int remove_noops(Graph& graph);
/// Turns each maximal chain of elementwise float32/float64 CPU ops over one shape into one
/// fused node (Fusion.h); returns the number of nodes fused away.
EMBER_API int fuse_elementwise(Graph& graph);

/// Which passes optimize() runs.
struct OptimizeOptions {
  bool remove_noops = true;
  bool fold_constants = true;
  bool eliminate_common_subexpressions = true;
  bool fuse = true;
};
/// Runs the passes in order (no-ops, constants, common subexpressions, prune, fusion,
/// prune); returns the names of those that changed something, each with its count.
EMBER_API std::vector<std::pair<std::string, int>> optimize(Graph& graph,
                                                            const OptimizeOptions& options = {});

}  // namespace ember::jit

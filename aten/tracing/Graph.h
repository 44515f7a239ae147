#pragma once
/// The traced graph: an SSA list of operator calls recorded at the dispatcher's Tracer key
/// (Tracer.h), which the passes rewrite (Passes.h) and the interpreter runs (run below).
///
/// Note [Graph values]: every value is a tensor, produced once: by a graph input (a
/// caller's tensor, a module parameter or buffer, by name), by one output of one node, or
/// held by the graph as a constant (a tensor the trace saw used but not produced: a
/// closure's tensor, an unregistered attribute). Non-tensor arguments (ints, scalars,
/// dtypes, lists of ints) are stored in the node itself.
/// Each value records what the trace saw: dtype, shape, strides, device, requires_grad.
/// In-place and out= ops are recorded as they ran; their outputs are new values that alias
/// the written argument, so replaying the nodes in order reproduces the mutations.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c10/core/IValue.h"
#include "c10/core/Tensor.h"
#include "c10/dispatch/OperatorHandle.h"
#include "c10/macros/Export.h"

namespace ember::jit {

/// What the trace saw of a tensor value.
struct EMBER_API TensorType {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  Device device = Device(DeviceType::CPU);
  bool requires_grad = false;

  static TensorType of(const Tensor& t);
  /// "f32[64, 10]" (strides are printed only when they are not contiguous).
  std::string str() const;
  bool operator==(const TensorType&) const = default;
};

/// A value of the graph (Note [Graph values]).
struct EMBER_API Value {
  std::string name;  ///< graph inputs: the name given ("x", "fc1.weight"); else empty.
  TensorType type;
  int producer = -1;  ///< the index of the node that makes it; -1 for inputs and constants.
  Tensor constant;    ///< defined for a constant: the tensor itself.
};

/// One argument or result slot of a node: a value, a list of values (Tensor[]; -1 for an
/// undefined element), or a non-tensor constant (an undefined Tensor? is the constant None).
struct EMBER_API Slot {
  enum class Kind : uint8_t { Value, ValueList, Constant };
  Kind kind = Kind::Constant;
  int value = -1;            ///< Kind::Value
  std::vector<int> values;   ///< Kind::ValueList
  IValue constant;           ///< Kind::Constant

  static Slot of_value(int v);
  static Slot of_list(std::vector<int> vs);
  static Slot of_constant(IValue c);
};

struct FusedProgram;

/// One recorded call. `fused` is set for the fused elementwise nodes the fusion pass makes;
/// their op name is "ember::fused_elementwise".
struct EMBER_API Node {
  std::string op;  ///< the qualified operator name with overload, "aten::add.Tensor"
  std::optional<OperatorHandle> handle;  ///< resolved; empty only for fused nodes
  std::vector<Slot> inputs;
  std::vector<Slot> outputs;  ///< Kind::Value or Kind::ValueList
  std::string source;         ///< where the call was made ("model.py:12"), when known
  std::shared_ptr<const FusedProgram> fused;

  /// The value ids this node reads, in argument order (lists flattened).
  std::vector<int> input_values() const;
  /// The value ids this node produces.
  std::vector<int> output_values() const;
  /// f(v) for each value id read / produced, as input_values() / output_values() list them,
  /// without building the list (the passes call these per node and per pass).
  template <class F>
  void for_each_input(F&& f) const {
    for (const Slot& s : inputs) {
      if (s.kind == Slot::Kind::Value) f(s.value);
      else if (s.kind == Slot::Kind::ValueList) for (int v : s.values) f(v);
    }
  }
  template <class F>
  void for_each_output(F&& f) const {
    for (const Slot& s : outputs) {
      if (s.kind == Slot::Kind::Value) f(s.value);
      else if (s.kind == Slot::Kind::ValueList) for (int v : s.values) f(v);
    }
  }
};

/// A traced graph: inputs, nodes in execution order, outputs.
class EMBER_API Graph {
 public:
  std::vector<Value> values;
  std::vector<int> inputs;   ///< value ids, in calling order
  std::vector<int> outputs;  ///< value ids returned, in order (one may repeat)
  std::vector<Node> nodes;

  /// Adds a value and returns its id.
  int add_value(TensorType type, std::string name = {}, int producer = -1);
  /// Adds a constant value holding t and returns its id.
  int add_constant(const Tensor& t);
  bool is_constant(int v) const { return values[v].constant.defined(); }
  /// One line per input, node and the return, e.g.
  /// `%3 : f32[64, 10] = aten::addmm(%b, %x, %w_t)  # model.py:12`.
  std::string str() const;
  /// "%3", or "%name" for a named input.
  std::string value_name(int v) const;
  /// Checks the SSA invariants (each value produced once, before its uses; ids in
  /// range); throws RuntimeError naming the first broken one.
  void verify() const;
  /// Renumbers values in order of definition and drops the ones nothing defines.
  void compact();
};

/// Runs the graph's nodes in order on `inputs` (one tensor per graph input, checked
/// against the recorded dtype, rank and device) through the dispatcher, so autograd
/// records the run as it records eager calls, and returns the graph's outputs. Values are
/// released after their last use.
EMBER_API std::vector<Tensor> run(const Graph& graph, const std::vector<Tensor>& inputs);

/// Calls one node's operator on the given argument values; the results in output order
/// (lists flattened). Used by run() and by constant folding.
EMBER_API std::vector<Tensor> call_node(const Node& node, const std::vector<Tensor>& env);

}  // namespace ember::jit

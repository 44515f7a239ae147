#pragma once
/// The autograd engine: runs the backward graph from some outputs, by dependency count,
/// on the calling thread, without recursion; and the entry points backward() and grad().

#include <optional>

#include "aten/autograd/Node.h"

namespace ember::autograd {

/// Whether backward checks every gradient for NaN and names the node that produced it
/// (torch.autograd.set_detect_anomaly); process-wide.
struct EMBER_API AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Whether a leaf's first gradient is held to Note [Gradient layout] even when it could be
/// stolen (torch.autograd.enforce_grad_layout_policy); per thread, default on. Off, a
/// stealable gradient is kept whatever its strides; a copy is still laid out by the rule.
struct EMBER_API GradLayoutPolicy {
  static bool is_enforced();
  static void set_enforced(bool enforced);
};

/// Runs a backward pass from `outputs` seeded with `grad_outputs` (undefined: ones, for
/// outputs of one element). With `inputs`, only the parts of the graph that lead to them
/// run, and their gradients are returned (accumulate_grad false: autograd.grad) or added
/// to their .grad (accumulate_grad true: backward(inputs=)). keep_graph keeps saved
/// tensors for another pass; create_graph records the backward ops (higher order).
/// `input_edges_after` are more inputs given as graph edges (torch's GradientEdge): the
/// gradient flowing into that node input, returned after those of `inputs`.
EMBER_API variable_list run_backward(const variable_list& outputs, const variable_list& grad_outputs,
                                     bool keep_graph, bool create_graph, const variable_list& inputs,
                                     bool allow_unused, bool accumulate_grad,
                                     const std::vector<Edge>& input_edges_after = {});

/// Tensor.backward / autograd.backward: accumulates gradients into the leaves' .grad.
/// retain_graph defaults to create_graph.
EMBER_API void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
                        std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                        const variable_list& inputs = {});

/// autograd.grad: the gradients of outputs with respect to inputs (undefined for an unused
/// input when allow_unused, else an error).
EMBER_API variable_list grad(const variable_list& outputs, const variable_list& inputs,
                             const variable_list& grad_outputs = {},
                             std::optional<bool> retain_graph = std::nullopt,
                             bool create_graph = false, bool allow_unused = false);

/// grad summed down to `sizes` (the reverse of broadcasting).
EMBER_API Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace ember::autograd

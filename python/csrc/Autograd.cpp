// ember._C's autograd: graph nodes as Python objects, the engine entry point, grad modes,
// tensor hooks, and the node behind ember.autograd.Function.
#include "python/csrc/Autograd.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "aten/autograd/BasicNodes.h"
#include "aten/autograd/Engine.h"
#include "aten/autograd/SavedVariable.h"
#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/zeros.h"
#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTensor.h"

namespace py = pybind11;

namespace ember::python {

using autograd::Node;
using autograd::variable_list;

namespace {

// A Python object kept alive by C++ (a hook, a backward function); released with the GIL.
class PyRef {
 public:
  explicit PyRef(PyObject* o) : obj_(Py_NewRef(o)) {}
  PyRef(const PyRef& o) : obj_(nullptr) {
    PyGILState_STATE g = PyGILState_Ensure();
    obj_ = Py_NewRef(o.obj_);
    PyGILState_Release(g);
  }
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!obj_ || !Py_IsInitialized()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(obj_);
    PyGILState_Release(g);
  }
  PyObject* get() const { return obj_; }

 private:
  PyObject* obj_;
};

Tensor tensor_of(py::handle h, const char* what) {
  EMBER_CHECK_TYPE(is_tensor(h.ptr()), what, ": expected a Tensor, but got ", Py_TYPE(h.ptr())->tp_name);
  return unpack(h.ptr());
}

variable_list tensors_of(const py::sequence& seq, const char* what, bool allow_none) {
  variable_list out;
  for (py::handle h : seq) {
    if (allow_none && h.is_none()) {
      out.emplace_back();
    } else {
      out.push_back(tensor_of(h, what));
    }
  }
  return out;
}

py::object tensor_object(Tensor t) { return py::reinterpret_steal<py::object>(wrap(std::move(t))); }

// Calls fn(grad) for a tensor hook: its result replaces the gradient unless None.
autograd::TensorHook python_hook(PyObject* fn) {
  return [ref = std::make_shared<PyRef>(fn)](const Tensor& grad) -> Tensor {
    py::gil_scoped_acquire gil;
    PyObject* g = wrap(grad);
    PyObject* r = PyObject_CallOneArg(ref->get(), g);
    Py_XDECREF(g);
    if (!r) throw PythonError();
    py::object result = py::reinterpret_steal<py::object>(r);
    if (result.is_none()) return Tensor();
    EMBER_CHECK_TYPE(is_tensor(result.ptr()), "hook: expected the hook to return a Tensor or None, "
                     "but got ", Py_TYPE(result.ptr())->tp_name);
    const Tensor& out = unpack(result.ptr());
    EMBER_CHECK(out.sizes() == grad.sizes(), "hook: the hook returned a gradient of shape ", out.sizes(),
                " for a gradient of shape ", grad.sizes());
    return out;
  };
}

// The node of an ember.autograd.Function: calls the Python backward with the saved tensors.
class PyNode final : public Node {
 public:
  PyNode(PyObject* backward, std::string name) : backward_(backward), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void release_variables() override {
    saved_.clear();
    released_ = true;
  }

  variable_list apply(variable_list&& grads) override {
    py::gil_scoped_acquire gil;
    EMBER_CHECK(!released_ || saved_count_ == 0, "Trying to backward through the graph a second "
                "time (or directly access saved tensors after they have already been freed). "
                "Saved intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.");
    auto self = shared_from_this();
    py::tuple saved(saved_.size());
    for (size_t i = 0; i < saved_.size(); ++i) saved[i] = tensor_object(saved_[i].unpack(self));
    py::tuple args(grads.size() + 1);
    args[0] = saved;
    for (size_t i = 0; i < grads.size(); ++i) {
      Tensor g = grads[i];
      if (!g.defined() && i < num_inputs()) {
        // Gradients of unused outputs arrive as zeros (ctx.materialize_grads).
        const auto& m = input_metadata(i);
        g = ember::zeros(m.sizes, TensorOptions().dtype(m.dtype).device(m.device));
      }
      args[i + 1] = tensor_object(std::move(g));
    }
    PyObject* r = PyObject_Call(backward_.get(), args.ptr(), nullptr);
    if (!r) throw PythonError();
    py::object result = py::reinterpret_steal<py::object>(r);
    py::tuple outs = py::isinstance<py::tuple>(result) ? py::reinterpret_borrow<py::tuple>(result)
                                                       : py::make_tuple(result);
    EMBER_CHECK(outs.size() == is_tensor_.size(), "function ", name_, " returned an incorrect "
                "number of gradients (expected ", is_tensor_.size(), ", got ", outs.size(), ")");
    variable_list out;
    for (size_t i = 0; i < outs.size(); ++i) {
      py::handle h = outs[i];
      if (!is_tensor_[i]) {
        EMBER_CHECK(h.is_none(), "function ", name_, " returned a gradient different than None at "
                    "position ", i + 1, ", but the corresponding forward input was not a Variable");
        continue;
      }
      out.push_back(h.is_none() ? Tensor() : tensor_of(h, "backward"));
    }
    return out;
  }

  PyRef backward_;
  std::string name_;
  std::vector<bool> is_tensor_;
  std::vector<autograd::SavedVariable> saved_;
  size_t saved_count_ = 0;
  bool released_ = false;
};

// Records an ember.autograd.Function call: outputs get a PyNode as grad_fn, with edges to
// the inputs' gradients, and the tensors given to save_for_backward are saved.
py::object record_function(py::handle backward, const std::string& name, const py::sequence& args,
                           const py::sequence& outputs, const py::sequence& to_save,
                           const py::sequence& non_differentiable) {
  auto node = std::make_shared<PyNode>(backward.ptr(), name);
  std::vector<autograd::Edge> edges;
  for (py::handle a : args) {
    const bool t = is_tensor(a.ptr());
    node->is_tensor_.push_back(t);
    if (t) edges.push_back(autograd::gradient_edge(unpack(a.ptr())));
  }
  node->set_next_edges(std::move(edges));
  variable_list outs = tensors_of(outputs, "Function.apply", true);
  variable_list nondiff = tensors_of(non_differentiable, "mark_non_differentiable", false);
  for (const Tensor& o : outs) {
    if (!o.defined()) continue;
    bool skip = false;
    for (const Tensor& n : nondiff) skip = skip || n.is_same(o);
    // Every output is an input of the node (backward gets a gradient per output, zeros
    // for the non-differentiable ones); only the differentiable ones get it as grad_fn.
    if (skip) {
      node->add_input_metadata(o);
    } else {
      autograd::set_history(o, node);
    }
  }
  for (py::handle h : to_save) {
    if (h.is_none()) {
      node->saved_.emplace_back();
      continue;
    }
    const Tensor t = tensor_of(h, "save_for_backward");
    bool is_output = false;
    for (const Tensor& o : outs) is_output = is_output || o.is_same(t);
    node->saved_.emplace_back(t, is_output);
  }
  node->saved_count_ = node->saved_.size();
  return py::cast(std::static_pointer_cast<Node>(node));
}

// Inference-mode scopes entered from Python (with ember.inference_mode(): ...), innermost last.
thread_local std::vector<std::unique_ptr<autograd::InferenceMode>> tls_inference_scopes;


// A tuple of gradients for a Python hook: None where a gradient is undefined.
py::tuple grads_tuple(const variable_list& grads) {
  py::tuple out(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    out[i] = grads[i].defined() ? tensor_object(grads[i]) : py::none();
  }
  return out;
}

// A node hook's result replaces grads unless None: a sequence of the same length, of
// Tensors or None.
void replace_grads(const py::object& result, variable_list& grads, const char* what) {
  if (result.is_none()) return;
  EMBER_CHECK_TYPE(py::isinstance<py::sequence>(result), what, ": expected the hook to return None "
                   "or a tuple of gradients, but got ", Py_TYPE(result.ptr())->tp_name);
  auto seq = py::reinterpret_borrow<py::sequence>(result);
  EMBER_CHECK(seq.size() == grads.size(), what, ": the hook returned ", seq.size(),
              " gradients, but expected ", grads.size());
  grads = tensors_of(seq, what, true);
}

uint64_t next_node_hook_id() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

// A handle that removes a node hook (torch's RemovableHandle for Node.register_hook).
struct NodeHookHandle {
  std::weak_ptr<Node> node;
  uint64_t id;
  void remove() {
    if (auto n = node.lock()) n->remove_node_hook(id);
  }
};

// Saved tensor hooks calling Python pack/unpack functions; the packed object is kept
// alive by the saved variable (released with the GIL).
class PySavedTensorHooks final : public autograd::SavedTensorHooks {
 public:
  PySavedTensorHooks(PyObject* pack, PyObject* unpack) : pack_(pack), unpack_(unpack) {}
  std::shared_ptr<void> pack(const Tensor& t) override {
    py::gil_scoped_acquire gil;
    PyObject* arg = wrap(t);
    PyObject* r = PyObject_CallOneArg(pack_.get(), arg);
    Py_XDECREF(arg);
    if (!r) throw PythonError();
    auto ref = std::make_shared<PyRef>(r);
    Py_DECREF(r);
    return ref;
  }
  Tensor unpack(const std::shared_ptr<void>& packed) override {
    py::gil_scoped_acquire gil;
    PyObject* r = PyObject_CallOneArg(unpack_.get(), static_cast<PyRef*>(packed.get())->get());
    if (!r) throw PythonError();
    py::object result = py::reinterpret_steal<py::object>(r);
    EMBER_CHECK_TYPE(is_tensor(result.ptr()), "saved tensor unpack hook: expected the hook to "
                     "return a Tensor, but got ", Py_TYPE(result.ptr())->tp_name);
    return unpack_tensor(result.ptr());
  }

 private:
  static Tensor unpack_tensor(PyObject* o) { return ::ember::python::unpack(o); }
  PyRef pack_;
  PyRef unpack_;
};

// grad_fn._raw_saved_<name>: one saved tensor of a node.
struct SavedTensorRef {
  std::shared_ptr<Node> node;
  autograd::SavedVariable* var;
};

autograd::SavedVariable* find_saved(Node& n, const std::string& name) {
  for (auto& [saved_name, var] : n.saved_variables()) {
    if (name == saved_name) return var;
  }
  return nullptr;
}
}  // namespace

PyObject* grad_fn_object(const Tensor& t) {
  std::shared_ptr<Node> fn = autograd::grad_fn(t);
  if (!fn) Py_RETURN_NONE;
  return py::cast(std::move(fn)).release().ptr();
}

void init_autograd(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "_Node", "A node of the autograd graph (a tensor's grad_fn).")
      .def("name", &Node::name, "The node's name: MulBackward0, AccumulateGrad, ...")
      .def_property_readonly("next_functions", [](const Node& n) {
        py::tuple out(n.num_outputs());
        for (size_t i = 0; i < n.num_outputs(); ++i) {
          const autograd::Edge& e = n.next_edge(i);
          out[i] = py::make_tuple(e.function ? py::cast(e.function) : py::none(), e.input_nr);
        }
        return out;
      }, "((node, input number) or (None, 0)) for each input of the forward op.")
      .def_property_readonly("variable", [](const Node& n) -> py::object {
        if (auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n)) {
          Tensor v = acc->variable();
          return v.defined() ? tensor_object(std::move(v)) : py::none();
        }
        throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
      }, "The leaf an AccumulateGrad node accumulates into.")
      .def("_sequence_nr", &Node::sequence_nr)
      .def("__repr__", [](const Node& n) {
        return "<" + n.name() + " object at " + std::to_string(reinterpret_cast<uintptr_t>(&n)) + ">";
      })
      .def("__eq__", [](const Node& a, const Node& b) { return &a == &b; })
      .def("__hash__", [](const Node& n) { return std::hash<const Node*>()(&n); })
      .def("register_prehook", [](Node& n, py::handle fn) {
        const uint64_t id = next_node_hook_id();
        n.add_node_pre_hook([ref = std::make_shared<PyRef>(fn.ptr())](variable_list& grads) {
          py::gil_scoped_acquire gil;
          py::object r = py::reinterpret_borrow<py::object>(ref->get())(grads_tuple(grads));
          replace_grads(r, grads, "Node.register_prehook");
        }, id);
        return NodeHookHandle{n.shared_from_this(), id};
      }, "Calls fn(grad_outputs) before the node runs; a tuple it returns replaces them.")
      .def("register_hook", [](Node& n, py::handle fn) {
        const uint64_t id = next_node_hook_id();
        n.add_node_post_hook([ref = std::make_shared<PyRef>(fn.ptr())](variable_list& grad_inputs,
                                                                     const variable_list& grad_outputs) {
          py::gil_scoped_acquire gil;
          py::object r = py::reinterpret_borrow<py::object>(ref->get())(grads_tuple(grad_inputs),
                                                                        grads_tuple(grad_outputs));
          replace_grads(r, grad_inputs, "Node.register_hook");
        }, id);
        return NodeHookHandle{n.shared_from_this(), id};
      }, "Calls fn(grad_inputs, grad_outputs) after the node ran; a tuple it returns replaces "
         "grad_inputs.")
      .def("__getattr__", [](Node& n, const std::string& attr) -> py::object {
        for (const char* prefix : {"_raw_saved_", "_saved_"}) {
          const std::string p(prefix);
          if (attr.rfind(p, 0) != 0) continue;
          autograd::SavedVariable* v = find_saved(n, attr.substr(p.size()));
          if (!v) break;
          if (p == "_raw_saved_") return py::cast(SavedTensorRef{n.shared_from_this(), v});
          Tensor t = v->unpack(n.shared_from_this());
          return t.defined() ? tensor_object(std::move(t)) : py::none();
        }
        throw py::attribute_error("'" + n.name() + "' object has no attribute '" + attr + "'");
      })
      .def("_saved_tensor_names", [](Node& n) {
        py::list out;
        for (auto& [name, var] : n.saved_variables()) out.append(name);
        return out;
      });
  py::class_<NodeHookHandle>(m, "_NodeHookHandle")
      .def("remove", &NodeHookHandle::remove);
  py::class_<SavedTensorRef>(m, "SavedTensor", "A tensor a node saved for backward "
                                               "(grad_fn._raw_saved_<name>).")
      .def("register_hooks", [](SavedTensorRef& s, py::handle pack, py::handle unpack) {
        EMBER_CHECK_TYPE(PyCallable_Check(pack.ptr()) && PyCallable_Check(unpack.ptr()),
                         "register_hooks(): expected pack_hook and unpack_hook to be callables");
        s.var->register_hooks(std::make_shared<PySavedTensorHooks>(pack.ptr(), unpack.ptr()));
      }, py::arg("pack_hook"), py::arg("unpack_hook"),
         "Packs the saved tensor now with pack_hook; unpack_hook gets it back in backward.");
  m.def("_push_saved_tensors_hooks", [](py::handle pack, py::handle unpack) {
    EMBER_CHECK_TYPE(PyCallable_Check(pack.ptr()) && PyCallable_Check(unpack.ptr()),
                     "saved_tensors_hooks(): expected pack_hook and unpack_hook to be callables");
    autograd::push_saved_tensor_hooks(std::make_shared<PySavedTensorHooks>(pack.ptr(), unpack.ptr()));
  });
  m.def("_bump_version", [](py::handle t) { tensor_of(t, "increment_version").impl()->bump_version(); });
  m.def("_pop_saved_tensors_hooks", [] { autograd::pop_saved_tensor_hooks(); });
  m.def("_set_saved_tensors_hooks_disabled", [](std::optional<std::string> message) {
    return autograd::set_saved_tensor_hooks_disabled(std::move(message));
  });

  m.def("_run_backward", [](const py::sequence& tensors, const py::sequence& grads, bool keep_graph,
                            bool create_graph, const py::sequence& inputs, bool allow_unused,
                            bool accumulate_grad, const py::sequence& edges) {
    std::vector<autograd::Edge> input_edges;
    for (py::handle e : edges) {
      auto pair = e.cast<std::pair<std::shared_ptr<Node>, uint32_t>>();
      input_edges.emplace_back(std::move(pair.first), pair.second);
    }
    variable_list outs = autograd::run_backward(
        tensors_of(tensors, "backward", false), tensors_of(grads, "backward", true), keep_graph,
        create_graph, tensors_of(inputs, "backward", false), allow_unused, accumulate_grad,
        input_edges);
    py::list result;
    for (Tensor& t : outs) result.append(t.defined() ? tensor_object(std::move(t)) : py::none());
    return result;
  }, "Runs a backward pass (ember.autograd.backward and grad call this).",
  py::arg("tensors"), py::arg("grads"), py::arg("keep_graph"), py::arg("create_graph"),
  py::arg("inputs"), py::arg("allow_unused"), py::arg("accumulate_grad"),
  py::arg("edges") = py::tuple());
  m.def("is_grad_enabled", [] { return autograd::GradMode::is_enabled(); },
        "Whether ops record autograd history on this thread.");
  m.def("_set_grad_enabled", [](bool on) { autograd::GradMode::set_enabled(on); });
  m.def("_enter_inference_mode", [](bool on) {
    tls_inference_scopes.push_back(std::make_unique<autograd::InferenceMode>(on));
  });
  m.def("_exit_inference_mode", [] {
    if (!tls_inference_scopes.empty()) tls_inference_scopes.pop_back();
  });
  m.def("is_inference_mode_enabled", [] { return autograd::InferenceMode::is_enabled(); },
        "Whether this thread is inside inference_mode.");
  m.def("_set_anomaly_enabled", [](bool on) { autograd::AnomalyMode::set_enabled(on); });
  m.def("_set_grad_layout_enforced", [](bool on) { autograd::GradLayoutPolicy::set_enforced(on); });
  m.def("_is_grad_layout_enforced", [] { return autograd::GradLayoutPolicy::is_enforced(); });
  m.def("is_anomaly_enabled", [] { return autograd::AnomalyMode::is_enabled(); },
        "Whether backward checks gradients for NaN.");
  m.def("_register_hook", [](py::handle t, py::handle fn) {
    return autograd::register_hook(tensor_of(t, "register_hook"), python_hook(fn.ptr()));
  });
  m.def("_remove_hook", [](py::handle t, uint64_t id) { autograd::remove_hook(tensor_of(t, "remove"), id); });
  m.def("_register_post_accumulate_grad_hook", [](py::handle t, py::handle fn) {
    auto ref = std::make_shared<PyRef>(fn.ptr());
    return autograd::register_post_accumulate_grad_hook(
        tensor_of(t, "register_post_accumulate_grad_hook"), [ref](const Tensor& leaf) {
          py::gil_scoped_acquire gil;
          PyObject* o = wrap(leaf);
          PyObject* r = PyObject_CallOneArg(ref->get(), o);
          Py_XDECREF(o);
          if (!r) throw PythonError();
          Py_DECREF(r);
        });
  });
  m.def("_remove_post_accumulate_grad_hook", [](py::handle t, uint64_t id) {
    autograd::remove_post_accumulate_grad_hook(tensor_of(t, "remove"), id);
  });
  m.def("_record_function", &record_function,
        "Records a call of an ember.autograd.Function (outputs get its node as grad_fn).");
  m.def("_is_view", [](py::handle t) { return autograd::is_view(tensor_of(t, "_is_view")); });
  m.def("_base", [](py::handle t) -> py::object {
    Tensor b = autograd::view_base(tensor_of(t, "_base"));
    return b.defined() ? tensor_object(std::move(b)) : py::none();
  });
}

}  // namespace ember::python

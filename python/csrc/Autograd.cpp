// ember._C's autograd: graph nodes as Python objects, the engine entry point, grad modes,
// tensor hooks, and the node behind ember.autograd.Function.
#include "python/csrc/Autograd.h"

#include <memory>
#include <string>
#include <vector>

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
      .def("__hash__", [](const Node& n) { return std::hash<const Node*>()(&n); });

  m.def("_run_backward", [](const py::sequence& tensors, const py::sequence& grads, bool keep_graph,
                            bool create_graph, const py::sequence& inputs, bool allow_unused,
                            bool accumulate_grad) {
    variable_list outs = autograd::run_backward(
        tensors_of(tensors, "backward", false), tensors_of(grads, "backward", true), keep_graph,
        create_graph, tensors_of(inputs, "backward", false), allow_unused, accumulate_grad);
    py::list result;
    for (Tensor& t : outs) result.append(t.defined() ? tensor_object(std::move(t)) : py::none());
    return result;
  }, "Runs a backward pass (ember.autograd.backward and grad call this).");
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

// ember._C's tracing entry points (aten/tracing/): begin and end a trace, the Graph type
// (printing, running, the passes, node introspection for the ONNX exporter) and the source
// hook that names the Python line of each recorded call. ember/jit/ builds ember.jit.trace,
// GraphModule and ember.compile on them.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "aten/tracing/Fusion.h"
#include "aten/tracing/Graph.h"
#include "aten/tracing/Passes.h"
#include "aten/tracing/Serialize.h"
#include "aten/tracing/Tracer.h"
#include "c10/util/Exception.h"
#include "python/csrc/Autograd.h"
#include "python/csrc/PyTensor.h"
#include "python/csrc/PyTypes.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using jit::Graph;

Tensor tensor_arg(py::handle h, const char* what) {
  EMBER_CHECK_TYPE(is_tensor(h.ptr()), what, ": expected a Tensor, but got ",
                   Py_TYPE(h.ptr())->tp_name);
  return unpack(h.ptr());
}

std::vector<Tensor> tensor_args(const py::sequence& seq, const char* what) {
  std::vector<Tensor> out;
  out.reserve(seq.size());
  for (py::handle h : seq) out.push_back(tensor_arg(h, what));
  return out;
}

py::object tensor_obj(Tensor t) { return py::reinterpret_steal<py::object>(wrap(std::move(t))); }

py::list tensor_objs(std::vector<Tensor> ts) {
  py::list out;
  for (Tensor& t : ts) out.append(tensor_obj(std::move(t)));
  return out;
}

// The innermost Python frame outside the ember package, as "file.py:12". Called by the
// tracer for each recorded op, on the thread that holds the GIL (the traced call's).
std::string python_source() {
  PyGILState_STATE gil = PyGILState_Ensure();
  std::string out;
  PyFrameObject* frame = PyEval_GetFrame();
  Py_XINCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    Py_DECREF(code);
    if (file == nullptr) {
      PyErr_Clear();
    } else {
      const std::string f(file);
      const bool internal = f.find("/ember/") != std::string::npos || f.rfind("<frozen", 0) == 0;
      if (!internal) {
        const size_t slash = f.find_last_of('/');
        out = (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" +
              std::to_string(PyFrame_GetLineNumber(frame));
        Py_DECREF(frame);
        break;
      }
    }
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  PyGILState_Release(gil);
  return out;
}

// A non-tensor constant of a node as a Python object.
py::object constant_object(const IValue& v) {
  if (v.is_none()) return py::none();
  if (v.is_bool()) return py::bool_(v.to_bool());
  if (v.is_int()) return py::int_(v.to_int());
  if (v.is_double()) return py::float_(v.to_double());
  if (v.is_complex()) return py::cast(v.to_complex());
  if (v.is_string()) return py::str(v.to_string());
  if (v.is_int_list()) return py::cast(v.to_int_list());
  if (v.is_double_list()) return py::cast(v.to_double_list());
  if (v.is_bool_list()) return py::cast(v.to_bool_list());
  if (v.is_scalar_type()) return py::reinterpret_borrow<py::object>(dtype_object(v.to_scalar_type()));
  if (v.is_layout()) return py::reinterpret_borrow<py::object>(layout_object(v.to_layout()));
  if (v.is_device()) return py::reinterpret_steal<py::object>(device_object(v.to_device()));
  if (v.is_scalar()) {
    const Scalar s = v.to_scalar();
    if (s.is_complex()) return py::cast(s.to_complex());
    if (s.is_floating_point()) return py::float_(s.to_double());
    if (s.is_bool()) return py::bool_(s.to_long() != 0);
    return py::int_(s.to_long());
  }
  return py::str("<" + std::string(v.is_generator() ? "generator" : "unprintable") + ">");
}

// One slot as ("value", id) | ("list", [ids]) | ("const", object).
py::tuple slot_object(const jit::Slot& s) {
  switch (s.kind) {
    case jit::Slot::Kind::Value: return py::make_tuple("value", s.value);
    case jit::Slot::Kind::ValueList: return py::make_tuple("list", py::cast(s.values));
    case jit::Slot::Kind::Constant: return py::make_tuple("const", constant_object(s.constant));
  }
  return py::make_tuple("const", py::none());
}

py::dict value_object(const Graph& g, int v) {
  const jit::Value& val = g.values[v];
  py::dict d;
  d["name"] = val.name;
  d["dtype"] = py::reinterpret_borrow<py::object>(dtype_object(val.type.dtype));
  d["shape"] = py::cast(val.type.sizes);
  d["strides"] = py::cast(val.type.strides);
  d["device"] = py::reinterpret_steal<py::object>(device_object(val.type.device));
  d["requires_grad"] = val.type.requires_grad;
  d["producer"] = val.producer;
  d["constant"] = val.constant.defined() ? tensor_obj(val.constant) : py::none();
  return d;
}

}  // namespace

void init_tracing(py::module_& m) {
  jit::set_source_hook(&python_source);

  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph",
      "A traced graph (aten/tracing/Graph.h): inputs, nodes in order, outputs.")
      .def("__str__", &Graph::str)
      .def("__repr__", [](const Graph& g) {
        return "<ember.jit.Graph: " + std::to_string(g.inputs.size()) + " inputs, " +
               std::to_string(g.nodes.size()) + " nodes, " + std::to_string(g.outputs.size()) +
               " outputs>";
      })
      .def("copy", [](const Graph& g) { return std::make_shared<Graph>(g); })
      .def("run", [](const Graph& g, const py::sequence& inputs) {
        std::vector<Tensor> in = tensor_args(inputs, "Graph.run()");
        return tensor_objs(jit::run(g, in));
      }, "Runs the graph on one tensor per input (in order); returns the outputs as a list.")
      .def("optimize", [](Graph& g, bool remove_noops, bool fold_constants, bool cse, bool fuse) {
        jit::OptimizeOptions o;
        o.remove_noops = remove_noops;
        o.fold_constants = fold_constants;
        o.eliminate_common_subexpressions = cse;
        o.fuse = fuse;
        return jit::optimize(g, o);
      }, py::arg("remove_noops") = true, py::arg("fold_constants") = true,
         py::arg("eliminate_common_subexpressions") = true, py::arg("fuse") = true)
      .def("prune", &jit::prune)
      .def("eliminate_common_subexpressions", &jit::eliminate_common_subexpressions)
      .def("fold_constants", &jit::fold_constants, py::arg("max_elements") = int64_t{1} << 20)
      .def("remove_noops", &jit::remove_noops)
      .def("fuse_elementwise", &jit::fuse_elementwise)
      .def("verify", &Graph::verify)
      .def_property_readonly("inputs", [](const Graph& g) { return g.inputs; })
      .def_property_readonly("outputs", [](const Graph& g) { return g.outputs; })
      .def_property_readonly("input_names", [](const Graph& g) {
        std::vector<std::string> names;
        for (int v : g.inputs) names.push_back(g.values[v].name);
        return names;
      })
      .def_property_readonly("num_values", [](const Graph& g) { return g.values.size(); })
      .def("value", [](const Graph& g, int v) {
        EMBER_CHECK_INDEX(v >= 0 && v < static_cast<int>(g.values.size()),
                          "Graph.value(): no value ", v);
        return value_object(g, v);
      }, "A value's name, dtype, shape, strides, device, requires_grad, producer and, for a "
         "constant, its tensor.")
      .def("nodes", [](const Graph& g) {
        py::list out;
        for (const jit::Node& n : g.nodes) {
          py::list ins, outs;
          for (const jit::Slot& s : n.inputs) ins.append(slot_object(s));
          for (const jit::Slot& s : n.outputs) outs.append(slot_object(s));
          py::dict d;
          d["op"] = n.op;
          d["inputs"] = ins;
          d["outputs"] = outs;
          d["source"] = n.source;
          d["schema"] = n.handle ? py::object(py::str(n.handle->schema().str())) : py::none();
          d["fused"] = n.fused ? py::object(py::str(n.fused->str())) : py::none();
          out.append(d);
        }
        return out;
      }, "The nodes in order, each a dict: op, inputs and outputs (slots as ('value', id), "
         "('list', [ids]) or ('const', object)), source, schema, and the fused program.");

  m.def("_jit_begin_trace", [](const py::sequence& named) {
    std::vector<std::pair<std::string, Tensor>> inputs;
    for (py::handle item : named) {
      auto pair = item.cast<py::tuple>();
      EMBER_CHECK_TYPE(pair.size() == 2, "_jit_begin_trace(): expected (name, tensor) pairs");
      inputs.emplace_back(pair[0].cast<std::string>(), tensor_arg(pair[1], "jit.trace() input"));
    }
    jit::begin_trace(inputs);
  });
  m.def("_jit_end_trace", [](const py::sequence& outputs) {
    return std::make_shared<Graph>(jit::end_trace(tensor_args(outputs, "jit.trace() output")));
  });
  m.def("_jit_save", [](const Graph& g, const py::sequence& bound, const std::string& path) {
    jit::TracedProgram p;
    p.graph = g;
    for (py::handle item : bound) {
      auto pair = item.cast<py::tuple>();
      p.bound.emplace_back(pair[0].cast<std::string>(), tensor_arg(pair[1], "jit.save() bound"));
    }
    py::gil_scoped_release unlocked;
    jit::save(p, path);
  });
  m.def("_jit_load", [](const std::string& path) {
    jit::TracedProgram p;
    {
      py::gil_scoped_release unlocked;
      p = jit::load(path);
    }
    py::list bound;
    for (auto& [name, t] : p.bound) bound.append(py::make_tuple(name, tensor_obj(t)));
    return py::make_tuple(std::make_shared<Graph>(std::move(p.graph)), bound);
  });
  m.def("_jit_abort_trace", &jit::abort_trace);
  m.def("_jit_is_tracing", &jit::is_tracing);
}

}  // namespace ember::python

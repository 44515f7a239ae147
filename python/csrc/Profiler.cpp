// ember._C's profiler entry points (aten/profiler/Profiler.h): start and end a session,
// user ranges; ember/profiler/ builds torch.profiler's API on them. Also the CPU autocast
// state (aten/amp/Autocast.h), which ember/amp.py's autocast sets.
#include <memory>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "aten/amp/Autocast.h"
#include "aten/profiler/Profiler.h"
#include "python/csrc/Autograd.h"
#include "python/csrc/PyTypes.h"

namespace py = pybind11;

namespace ember::python {

void init_profiler(py::module_& m) {
  m.def("_profiler_enable", [](bool record_shapes) {
    profiler::Options o;
    o.record_shapes = record_shapes;
    profiler::enable(o);
  }, py::arg("record_shapes") = false);
  // Each event as (name, start_ns, end_ns, thread, depth, user_range, shapes).
  m.def("_profiler_disable", [] {
    std::vector<profiler::Event> events;
    {
      py::gil_scoped_release unlocked;
      events = profiler::disable();
    }
    py::list out;
    for (auto& e : events) {
      out.append(py::make_tuple(e.name, e.start_ns, e.end_ns, e.thread, e.depth, e.user_range,
                                py::cast(e.shapes)));
    }
    return out;
  });
  m.def("_profiler_is_enabled", &profiler::is_enabled);
  py::class_<profiler::RecordFunction>(m, "_RecordFunction")
      .def(py::init<std::string>());
  // CPU autocast (aten/amp/Autocast.h), per thread: (enabled, dtype).
  m.def("_get_autocast_cpu", [] {
    const amp::AutocastState s = amp::cpu_autocast_state();
    return py::make_tuple(s.enabled, py::reinterpret_borrow<py::object>(dtype_object(s.dtype)));
  });
  m.def("_set_autocast_cpu", [](bool enabled, py::handle dtype) {
    const std::optional<ScalarType> t = to_scalar_type(dtype.ptr());
    if (!t) throw py::type_error("_set_autocast_cpu(): expected an ember.dtype");
    amp::set_cpu_autocast_state({enabled, *t});
  });
}

}  // namespace ember::python

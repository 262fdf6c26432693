// _perfit: the C++ core for the Python package (python/perfit). Errors arrive as the package's
// exception classes, one per error class of the CLI (docs/errors.md), with the CLI's message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "fitting.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/logging.hpp"
#include "perfit/core/version.hpp"
#include "perfit/io/store_import.hpp"
#include "perfit/io/store_reader.hpp"
#include "selecting.hpp"
#include "tables.hpp"

namespace py = pybind11;

namespace perfit::python {

namespace {

py::dict read_store(const std::string& path, const std::string& set) {
  const io::StoreReader store(path);
  data::MeasurementTable t = store.read(set);
  py::dict attributes;
  for (const auto& [k, v] : t.attributes()) {
    attributes[py::str(k)] = std::visit([](const auto& x) { return py::cast(x); }, v);
  }
  py::dict out;
  out["attributes"] = attributes;
  out["columns"] = columns_to_python(std::move(t));
  return out;
}

std::size_t write_store(const py::dict& columns, const std::string& path, const std::string& set,
                        const std::string& target, const std::string& unit, bool replace,
                        bool append, const std::string& source) {
  io::ImportOptions o;
  o.csv = "the DataFrame";
  o.store = path;
  o.set = set;
  o.target = target;
  o.unit = unit;
  o.replace = replace;
  o.append = append;
  o.source = source.empty() ? "DataFrame" : source;
  data::MeasurementTable t = table_from_columns(columns, "the DataFrame");
  py::gil_scoped_release released;
  return io::import_table(o, std::move(t)).rows_in_set;
}

}  // namespace

}  // namespace perfit::python

PYBIND11_MODULE(_perfit, m) {
  using namespace perfit;
  m.doc() = "perfit's C++ core; use the package `perfit`, not this module";
  // Warnings of the core on stderr, the CLI's format; the package's own output is Python's.
  init_logging(0, LogLevel::warn);
  // Plain PyObject* on purpose: a static py::object would be released after the interpreter is.
  static PyObject* base = PyErr_NewException("perfit.PerfitError", PyExc_Exception, nullptr);
  m.add_object("PerfitError", py::handle(base));
  const auto sub = [&m](const char* name) {
    PyObject* e = PyErr_NewException((std::string("perfit.") + name).c_str(), base, nullptr);
    m.add_object(name, py::handle(e));
    return e;
  };
  static PyObject* config = sub("ConfigError");
  static PyObject* data = sub("DataError");
  static PyObject* h5 = sub("H5Error");
  static PyObject* io = sub("IoError");
  static PyObject* mpi = sub("MpiError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      PyErr_SetString(config, e.what());
    } catch (const DataError& e) {
      PyErr_SetString(data, e.what());
    } catch (const H5Error& e) {
      PyErr_SetString(h5, e.what());
    } catch (const IoError& e) {
      PyErr_SetString(io, e.what());
    } catch (const MpiError& e) {
      PyErr_SetString(mpi, e.what());
    } catch (const Error& e) {
      PyErr_SetString(base, e.what());
    }
  });
  m.def("read_store", &python::read_store, py::arg("path"), py::arg("set"));
  m.def("write_store", &python::write_store, py::arg("columns"), py::arg("path"), py::arg("set"),
        py::arg("target"), py::arg("unit"), py::arg("replace"), py::arg("append"),
        py::arg("source"));
  m.def("version", [] { return std::string(version()) + " (" + git_revision() + ")"; });
  m.def("set_log_level", [](const std::string& level) { init_logging(0, parse_log_level(level)); });
  python::add_fitting(m);
  python::add_selecting(m);
}

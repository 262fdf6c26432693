#include "fitting.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>

#include "options.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/job/prediction.hpp"
#include "perfit/job/result_report.hpp"
#include "tables.hpp"

namespace py = pybind11;

namespace perfit::python {

namespace {

// Python's Ctrl-C during a fit: the fit polls this once per generation; a pending
// KeyboardInterrupt (or any exception a signal handler raised) stops the fit and is raised again
// once the GIL is back.
class PythonSignals {
 public:
  PythonSignals() = default;
  PythonSignals(const PythonSignals&) = delete;
  PythonSignals& operator=(const PythonSignals&) = delete;
  // With the GIL held (the fit's scope has ended): drops an exception a failed fit left unraised.
  ~PythonSignals() {
    if (!raised_) return;
    Py_XDECREF(type_);
    Py_XDECREF(value_);
    Py_XDECREF(trace_);
  }
  bool poll() {
    if (raised_) return true;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Fetch(&type_, &value_, &trace_);
      raised_ = true;
    }
    return raised_;
  }
  // With the GIL held: raises what a signal handler raised, if it did.
  void rethrow() {
    if (!raised_) return;
    raised_ = false;
    PyErr_Restore(type_, value_, trace_);
    throw py::error_already_set();
  }

 private:
  bool raised_ = false;
  PyObject *type_ = nullptr, *value_ = nullptr, *trace_ = nullptr;
};

io::ResultFile fit_columns(const py::dict& columns, const std::string& set,
                           const std::string& target, const std::string& unit,
                           const py::dict& options, bool verbose) {
  job::FitJob job;
  job.cfg.data = "DataFrame";
  job.cfg.set = set;
  for (const auto& [key, value] : options)
    apply_run_option(job.cfg, py::str(key), py::str(value), "perfit.fit");
  job.table =
      std::make_shared<data::MeasurementTable>(table_from_columns(columns, "the DataFrame"));
  auto& attributes = job.table->attributes();
  attributes["target"] = target;
  attributes["unit"] = unit;
  attributes["checksum"] = data::table_checksum(*job.table);
  job.write = false;
  job.verbose = verbose;
  PythonSignals signals;
  job.interrupted = [&signals] { return signals.poll(); };
  std::optional<job::FitJobOutcome> out;
  {
    py::gil_scoped_release released;
    out = job::run_fit_job(std::move(job), MPI_COMM_NULL);
  }
  signals.rethrow();
  // Only an interrupted fit ends without a result, and that one has raised above.
  if (!out->result)
    throw Error("perfit.fit: the fit ended without a result (checkpointed); please report this", 1);
  return std::move(*out->result);
}

// {name: [...]} per constant: value, bounds, scale, at_bound, determined, linear, interval.
py::dict params_columns(const io::ResultFile& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> name;
  std::vector<double> value, lo, hi, ci_lo, ci_hi, past_bound;
  std::vector<bool> log_scale, at_bound, determined, linear;
  for (const auto& p : r.params) {
    name.push_back(p.name);
    value.push_back(p.value);
    lo.push_back(p.lo);
    hi.push_back(p.hi);
    log_scale.push_back(p.log_scale);
    at_bound.push_back(p.at_bound);
    determined.push_back(p.identifiable);
    linear.push_back(p.linear);
    // An undetermined constant has no interval: its refits only wander where the data do not look.
    const bool ci = r.has_bootstrap() && p.identifiable;
    ci_lo.push_back(ci ? p.ci_lo : nan);
    ci_hi.push_back(ci ? p.ci_hi : nan);
    past_bound.push_back(p.past_bound);
  }
  py::dict d;
  d["name"] = name;
  d["value"] = value;
  d["lo"] = lo;
  d["hi"] = hi;
  d["log_scale"] = log_scale;
  d["at_bound"] = at_bound;
  d["determined"] = determined;
  d["linear"] = linear;
  d["ci_lo"] = ci_lo;
  d["ci_hi"] = ci_hi;
  d["past_bound"] = past_bound;
  if (const job::Groups g = job::groups_of(r);
      !g.empty()) {  // a joint fit: which constant, which group
    std::vector<std::string> constant, group;
    for (const auto& p : r.params) {
      auto [c, label] = job::param_group(g, p.name);
      constant.push_back(std::move(c));
      group.push_back(std::move(label));
    }
    d["constant"] = constant;
    d["group"] = group;
  }
  return d;
}

py::dict predict_columns(const io::ResultFile& r, const std::string& name, const py::dict& columns,
                         double interval) {
  const job::Prediction p = job::predict_rows(r, name, table_from_columns(columns, "the DataFrame"),
                                              "the DataFrame", false, interval);
  py::dict d;
  d["predicted"] = std::vector<double>(p.values.begin(), p.values.end());
  py::dict terms;
  for (std::size_t k = 0; k < p.term_names.size(); ++k) {
    const auto col = p.terms.col(static_cast<Eigen::Index>(k));
    terms[py::str(p.term_names[k])] = std::vector<double>(col.begin(), col.end());
  }
  d["terms"] = terms;
  if (p.interval.bounds) {
    d["lo"] = std::vector<double>(p.interval.bounds->lo.begin(), p.interval.bounds->lo.end());
    d["hi"] = std::vector<double>(p.interval.bounds->hi.begin(), p.interval.bounds->hi.end());
  }
  d["level"] = p.interval.level;
  d["contains"] = p.interval.contains;
  d["interval_unavailable"] = p.interval.asked_but_unavailable;
  std::vector<std::string> cells;
  std::vector<bool> outside;
  for (const auto& o : p.outside) {
    cells.push_back(p.guard.known() ? job::RangeGuard::cell(o) : "range unknown");
    outside.push_back(!o.empty());
  }
  d["outside"] = cells;
  d["extrapolated"] = outside;
  d["range_known"] = p.guard.known();
  d["warning"] = p.guard.warning(p.outside, "predict");
  d["note"] = p.note;
  return d;
}

py::list candidates_of(const io::ResultFile& r) {
  py::list out;
  for (const auto& c : r.candidates) {
    py::dict d;
    d["rank"] = c.rank;
    d["model"] = c.model;
    d["source"] = c.source;
    d["score"] = c.score;
    d["held_out_mape"] = c.mape;
    d["curve"] = !c.params.empty();
    out.append(d);
  }
  return out;
}

// The result as if candidate k had been the fit: its model and constants, the rows and ranges
// of the selection's winner (which is what a figure of every candidate draws against).
io::ResultFile as_candidate(const io::ResultFile& r, std::size_t k) {
  if (k >= r.candidates.size())
    throw ConfigError("candidate " + std::to_string(k) + ": the result has " +
                      std::to_string(r.candidates.size()));
  const io::CandidateFit& c = r.candidates[k];
  if (c.params.empty())
    throw DataError("candidate '" + c.model + "' has no fit on every row (its fit failed)");
  const model::ModelSpec spec = io::parse_model_yaml(c.model_yaml, "candidate '" + c.model + "'");
  io::ResultFile x = r;
  x.model_name = c.model;
  x.model_yaml = c.model_yaml;
  x.params.clear();
  for (std::size_t i = 0; i < spec.params.size() && i < c.params.size(); ++i) {
    const auto& p = spec.params[i];
    x.params.push_back({p.name, c.params[i], p.lo, p.hi, p.log_scale, false, true, false});
  }
  x.bootstrap.clear();
  x.candidates.clear();
  x.warnings.clear();
  return x;
}

void save_result(const io::ResultFile& r, const std::string& path, bool force) {
  io::check_output({path, "path", io::FileKind::result, {}, force, false, "force=True"});
  io::write_result_file(path, r);
}

}  // namespace

void add_fitting(py::module_& m) {
  py::class_<io::ResultFile>(m, "Result",
                             "A fit's result: what `perfit fit --out` writes, in memory.")
      .def(
          "json",
          [](const io::ResultFile& r, const std::string& path) {
            return job::result_json(r, path).dump();
          },
          py::arg("path") = "")
      .def("text", &job::result_table_text)
      .def("candidates", &candidates_of)
      .def("candidate", &as_candidate, py::arg("k"))
      .def("rows",
           [](const io::ResultFile& r) {
             return columns_to_python(data::MeasurementTable(r.kept_rows));
           })
      .def("params", &params_columns)
      .def("predict", &predict_columns, py::arg("name"), py::arg("columns"),
           py::arg("interval") = 0.0)
      .def("save", &save_result, py::arg("path"), py::arg("force") = false);
  m.def("fit", &fit_columns, py::arg("columns"), py::arg("set"), py::arg("target"), py::arg("unit"),
        py::arg("options"), py::arg("verbose") = false);
  m.def("load", &io::read_result, py::arg("path"), py::arg("set") = "");
  m.def("options", [] {
    py::list out;
    fit::RunConfig defaults;
    for (const auto& o : fit::run_config_option_table()) {
      std::string name = o.flag.empty() ? o.key : o.flag;
      for (char& c : name) c = c == '-' ? '_' : c;
      out.append(py::make_tuple(name, o.key, o.format(defaults), o.expected, o.doc));
    }
    return out;
  });
}

}  // namespace perfit::python

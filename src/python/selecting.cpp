#include "selecting.hpp"

#include <pybind11/stl.h>

#include "options.hpp"
#include "perfit/core/error.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/io/store_import.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/select/select_set.hpp"
#include "perfit/select/validate.hpp"
#include "perfit/select/winner.hpp"
#include "tables.hpp"

namespace py = pybind11;

namespace perfit::python {

namespace {

// The DataFrame's columns as the rows of cfg's set, with its target and unit, checked as
// write_store checks them (cfg.drop_invalid drops what it refuses).
job::SetSource given_rows(const py::dict& columns, const std::string& target,
                          const std::string& unit, const fit::RunConfig& cfg) {
  auto table =
      std::make_shared<data::MeasurementTable>(table_from_columns(columns, "the DataFrame"));
  io::ImportOptions check;
  check.csv = "the DataFrame";
  check.set = cfg.set;
  check.target = target;
  check.unit = unit;
  check.drop_invalid = cfg.drop_invalid;
  io::check_table(check, *table);
  table->attributes()["target"] = target;
  table->attributes()["unit"] = unit;
  table->attributes()["checksum"] = data::table_checksum(*table);
  return {std::move(table)};
}

// {"ranking": JSON text, "how": ..., "winner": Result} of the rows' selection.
py::dict select_set(const py::dict& columns, const std::string& set, const std::string& target,
                    const std::string& unit, const py::dict& options) {
  select::SelectArgs a;  // no MPI environment: serial, in this process
  fit::RunConfig cfg;
  cfg.data = "DataFrame";
  cfg.set = set;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (!apply_choice_option(a, name, py::str(value)))
      apply_run_option(cfg, name, py::str(value), "perfit.select");
  }
  cfg.validate(false);
  a.source = given_rows(columns, target, unit, cfg);
  py::dict out;
  std::optional<io::ResultFile> winner;
  std::string ranking, how;
  {
    py::gil_scoped_release released;
    const select::Selection s = select::select_set(
        a, cfg, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL);
    ranking = select::ranking_json(s.ranked, a.criterion).dump();
    how = s.how;
    job::FitJob job = select::winner_job(a, cfg, s);
    job.candidates = select::candidate_fits(a, cfg, s);
    job.write = false;
    job.verbose = false;
    job::FitJobOutcome fitted = job::run_fit_job(std::move(job), MPI_COMM_NULL);
    if (!fitted.result) throw DataError("select: the winner's fit on every row did not finish");
    winner = std::move(*fitted.result);
  }
  out["ranking"] = ranking;
  out["how"] = how;
  out["criterion"] = std::string(select::to_string(a.criterion));
  out["winner"] = std::move(*winner);
  return out;
}

std::string validate_set(const py::dict& columns, const std::string& set, const std::string& target,
                         const std::string& unit, const std::string& split,
                         const py::dict& options) {
  fit::RunConfig cfg;
  cfg.data = "DataFrame";
  cfg.set = set;
  for (const auto& [key, value] : options)
    apply_run_option(cfg, py::str(key), py::str(value), "perfit.validate");
  cfg.validate(false);
  const job::SetSource source = given_rows(columns, target, unit, cfg);
  py::gil_scoped_release released;
  const select::Validation v = select::run_validation(
      cfg, split, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL, source);
  return select::validation_json(v, cfg).dump();
}

}  // namespace

void add_selecting(py::module_& m) {
  m.def("select", &select_set, py::arg("columns"), py::arg("set"), py::arg("target"),
        py::arg("unit"), py::arg("options"));
  m.def("validate", &validate_set, py::arg("columns"), py::arg("set"), py::arg("target"),
        py::arg("unit"), py::arg("split"), py::arg("options"));
}

}  // namespace perfit::python

#include "selecting.hpp"

#include <pybind11/stl.h>

#include "perfit/job/fit_job.hpp"
#include "options.hpp"
#include "perfit/select/select_set.hpp"
#include "perfit/select/winner.hpp"
#include "perfit/select/validate.hpp"
#include "perfit/core/error.hpp"

namespace py = pybind11;

namespace perfit::python {

namespace {

// {"ranking": JSON text, "how": ..., "winner": Result} of the set's selection.
py::dict select_set(const std::string& data, const std::string& set, const py::dict& options) {
  select::SelectArgs a;  // no MPI environment: serial, in this process
  fit::RunConfig cfg;
  cfg.data = data;
  cfg.set = set;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (!apply_choice_option(a, name, py::str(value))) apply_run_option(cfg, name, py::str(value), "perfit.select");
  }
  cfg.validate(false);
  py::dict out;
  std::optional<io::ResultFile> winner;
  std::string ranking, how;
  {
    py::gil_scoped_release released;
    const select::Selection s = select::select_set(a, cfg, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL);
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
  winner->data_file = "DataFrame";  // its rows came from Python, through a temporary store
  out["ranking"] = ranking;
  out["how"] = how;
  out["criterion"] = std::string(select::to_string(a.criterion));
  out["winner"] = std::move(*winner);
  return out;
}

std::string validate_set(const std::string& data, const std::string& set, const std::string& split,
                         const py::dict& options) {
  fit::RunConfig cfg;
  cfg.data = data;
  cfg.set = set;
  for (const auto& [key, value] : options) apply_run_option(cfg, py::str(key), py::str(value), "perfit.validate");
  cfg.validate(false);
  py::gil_scoped_release released;
  const select::Validation v = select::run_validation(cfg, split, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL);
  return select::validation_json(v, cfg).dump();
}

}  // namespace

void add_selecting(py::module_& m) {
  m.def("select", &select_set, py::arg("data"), py::arg("set"), py::arg("options"));
  m.def("validate", &validate_set, py::arg("data"), py::arg("set"), py::arg("split"), py::arg("options"));
}

}  // namespace perfit::python

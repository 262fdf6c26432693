#include "selecting.hpp"

#include <pybind11/stl.h>

#include "fit_job.hpp"
#include "options.hpp"
#include "select_core.hpp"
#include "select_winner.hpp"
#include "validate_core.hpp"
#include "perfit/core/error.hpp"

namespace py = pybind11;

namespace perfit::python {

namespace {

// {"ranking": JSON text, "how": ..., "winner": Result} of the set's selection.
py::dict select_set(const std::string& data, const std::string& set, const py::dict& options) {
  app::SelectArgs a;  // no MPI environment: serial, in this process
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
    const app::Selection s = app::select_set(a, cfg, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL);
    ranking = app::ranking_json(s.ranked, a.criterion).dump();
    how = s.how;
    app::FitJob job = app::winner_job(a, cfg, s);
    job.candidates = app::candidate_fits(a, cfg, s);
    job.write = false;
    job.verbose = false;
    app::FitJobOutcome fitted = app::run_fit_job(std::move(job), MPI_COMM_NULL);
    if (!fitted.result) throw DataError("select: the winner's fit on every row did not finish");
    winner = std::move(*fitted.result);
  }
  winner->data_file = "DataFrame";  // its rows came from Python, through a temporary store
  out["ranking"] = ranking;
  out["how"] = how;
  out["criterion"] = std::string(app::to_string(a.criterion));
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
  const app::Validation v = app::run_validation(cfg, split, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL);
  return app::validation_json(v, cfg).dump();
}

}  // namespace

void add_selecting(py::module_& m) {
  m.def("select", &select_set, py::arg("data"), py::arg("set"), py::arg("options"));
  m.def("validate", &validate_set, py::arg("data"), py::arg("set"), py::arg("split"), py::arg("options"));
}

}  // namespace perfit::python

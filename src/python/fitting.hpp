// The package's fits, results and predictions: perfit.fit on a DataFrame runs the CLI's one fit
// job (perfit/job/fit_job.hpp) on rows given in memory, serially, with the GIL released and
// Python's Ctrl-C polled once per generation; a result is the CLI's result file in memory.
#pragma once

#include <pybind11/pybind11.h>

namespace perfit::python {

// Result, fit, load, predict, options.
void add_fitting(pybind11::module_& m);

}  // namespace perfit::python

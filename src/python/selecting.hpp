// perfit.select and perfit.validate: the CLI's selection and validation (app/select_core.hpp,
// app/validate_core.hpp) in this process, serially, on a set of a store.
#pragma once

#include <pybind11/pybind11.h>

namespace perfit::python {

void add_selecting(pybind11::module_& m);

}  // namespace perfit::python
